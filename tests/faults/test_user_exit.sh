#!/bin/bash
# A user objective that calls exit() ends the run with exit status 1 and a
# message that the island left without finishing, whatever status it asked
# for (0 would read as success, 3 as "requeue me"), at start-up or in the
# middle of the run, on one rank or on 2; the files that were in the run
# directory before are untouched.
. "$IPSO_TEST_DIR/lib/common.sh"
. "$IPSO_TEST_DIR/faults/user_lib.sh"
export IPSO_CACHE_DIR=$work/cache
run=$work/run
mkdir -p "$run"
printf 'precious data\n' >"$run/precious.dat"

# quits N AFTER STATUS WHAT: runs on N ranks with exit(STATUS) at call AFTER.
quits() {
  local n=$1 after=$2 status=$3 what=$4
  cat >"$run/quitter.cu" <<SRC
/* The sphere, until its ${after}-th call: then exit(${status}). */
#include <stdlib.h>
static long calls;
ipso_real quitter(const ipso_real *x, int d)
{
  if (++calls == ${after}) exit(${status});
  ipso_real s = 0;
  for (int i = 0; i < d; i++) s += x[i] * x[i];
  return s;
}
SRC
  user_cfg "$run/q.toml" quitter.cu quitter 4 32 1000
  sed -i 's/^output = ""$/output = "q.h5"/' "$run/q.toml"
  rm -f "$run/q.h5"
  snapshot "$run"
  if [ "$n" -eq 1 ]; then
    expect_rc 1 "$what" bash -c "cd '$run' && '$IPSO_BIN' q.toml"
  else
    expect_rc 1 "$what" bash -c "cd '$run' && '$MPIEXEC' '$MPIEXEC_NUMPROC_FLAG' $n '$IPSO_BIN' q.toml"
  fi
  if echo "$out" | grep -q "exit($status) was called before the run finished" &&
    echo "$out" | grep -q "the island left without finishing; did the objective call exit()"; then
    pass "$what: the message says so"
  else
    fail "$what: message: $out"
  fi
  echo "$out" | grep -q "best fitness" && fail "$what: a summary was printed"
  untouched "$run" "$what"
}

quits 1 1 0 "exit(0) at the first call (start-up)"
quits 1 5000 0 "exit(0) at call 5000 (mid-run)"
grep -Eq "\(in [a-z -]+ at iteration [0-9]+\)" <<<"$out" &&
  pass "mid-run: the message names the phase and iteration" || fail "mid-run: no iteration in: $out"
quits 1 5000 3 "exit(3) at call 5000"
quits 2 5000 0 "exit(0) at call 5000 on 2 ranks"
finish
