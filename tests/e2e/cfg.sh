# write_cfg FILE OBJECTIVE DIMS PARTICLES ITERATIONS [extra TOML lines...]:
# a CPU config (precision $PREC, default double) without checkpoints; the
# extra lines go into [output] unless they open another table.
write_cfg() {
  local file=$1 obj=$2 dims=$3 parts=$4 its=$5; shift 5
  {
    printf '[run]\nbackend = "cpu"\nprecision = "%s"\nmax_iterations = %s\noutput = ""\n' \
      "${PREC:-double}" "$its"
    printf '[objective]\nname = "%s"\ndimensions = %s\n' "$obj" "$dims"
    printf '[swarm]\nparticles = %s\n' "$parts"
    printf '[output]\ncheckpoint = ""\nprogress = "off"\n'
    for line in "$@"; do printf '%s\n' "$line"; done
  } >"$file"
}
