# shellcheck shell=bash
# The one config writer of the shell tests. Source it.
#
# ipso_config FILE OBJECTIVE DIMS PARTICLES ITERATIONS [SECTION.KEY=VALUE...]
# writes a config: OBJECTIVE in DIMS dimensions, PARTICLES per island,
# ITERATIONS, on the CPU backend in precision $PREC (default double), with no
# output file, no checkpoints and no progress lines, unless a
# SECTION.KEY=VALUE says otherwise. VALUE is TOML (strings quoted:
# 'run.output="run.h5"'); an empty VALUE leaves the key out, so islandpso's
# default applies ('output.checkpoint=': the output's .ckpt.h5). SECTION may
# be a sub-table ('objective.params.target=[1, 2]'). Keys are written in the
# order given, tables in the order run, objective, objective.params, swarm,
# migration, output, then any other; the same key given twice: the last wins.
# Returns 2 (and says why) for an argument that is not SECTION.KEY=VALUE.
ipso_config() {
  if [ $# -lt 5 ]; then
    echo "ipso_config: usage: ipso_config FILE OBJECTIVE DIMS PARTICLES ITERATIONS [SECTION.KEY=VALUE...]" >&2
    return 2
  fi
  local file=$1 kv path s
  local -a order=() sections=(run objective objective.params swarm migration output)
  local -A val=()
  local defaults=(run.backend='"cpu"' run.precision="\"${PREC:-double}\"" run.max_iterations="$5"
    run.output='""' objective.name="\"$2\"" objective.dimensions="$3" swarm.particles="$4"
    output.checkpoint='""' output.progress='"off"')
  shift 5
  for kv in "${defaults[@]}" "$@"; do
    if [[ ! $kv =~ ^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+= ]]; then
      echo "ipso_config: '$kv' is not SECTION.KEY=VALUE" >&2
      return 2
    fi
    path=${kv%%=*}
    [ -n "${val[$path]+set}" ] || order+=("$path")
    val[$path]=${kv#*=}
    s=${path%.*}
    [[ " ${sections[*]} " == *" $s "* ]] || sections+=("$s")
  done
  local header
  {
    for s in "${sections[@]}"; do
      header=0
      for path in "${order[@]}"; do
        if [ "${path%.*}" != "$s" ] || [ -z "${val[$path]}" ]; then continue; fi
        [ "$header" -eq 1 ] || printf '[%s]\n' "$s"
        header=1
        printf '%s = %s\n' "${path##*.}" "${val[$path]}"
      done
    done
  } >"$file"
}
