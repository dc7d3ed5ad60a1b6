# Shared by the test scripts: a scratch directory removed on exit, the
# launcher, small assertion helpers, the config writer (lib/config.sh) and
# the HDF5 readers (lib/h5.sh). Source it; it sets -u.
set -u
. "$IPSO_TEST_DIR/lib/config.sh"
. "$IPSO_TEST_DIR/lib/h5.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fails=0

# mpi N ARGS...: runs islandpso on N ranks (oversubscribed and as root as
# the test environment allows).
mpi() {
  local n=$1; shift
  "$MPIEXEC" "$MPIEXEC_NUMPROC_FLAG" "$n" "$IPSO_BIN" "$@"
}

# scaled SECONDS: a time bound times IPSO_TEST_TIME_SCALE (a whole number:
# 4 in the asan preset), for every bound a test sets on how long something
# may take.
scaled() { echo $(($1 * ${IPSO_TEST_TIME_SCALE:-1})); }

pass() { echo "ok   $*"; }
fail() { echo "FAIL $*"; fails=$((fails + 1)); }

# expect_rc WANT DESCRIPTION COMMAND...: runs COMMAND (output in $out) and checks its exit code.
expect_rc() {
  local want=$1 what=$2; shift 2
  out=$("$@" 2>&1); local rc=$?
  if [ "$rc" -eq "$want" ]; then pass "$what (exit $rc)"; else fail "$what: exit $rc, want $want"; echo "$out" | tail -15; fi
}


finish() {
  if [ "$fails" -eq 0 ]; then echo "passed"; exit 0; fi
  echo "FAILED ($fails)"; exit 1
}
