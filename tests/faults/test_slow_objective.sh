#!/bin/bash
# Time inside a segment: with an objective of 1 ms per call a segment of
# iterations would last minutes (segments are sized by particle-dimension
# updates), so a stop signal, the watchdog and time-based checkpoints would
# wait that long. Segments are computed in slices of about a second: a
# SIGTERM is served within seconds with a checkpoint and exit 3, a watchdog
# of 4 s does not kill this healthy run, and checkpoint_interval =
# "00:00:02" writes checkpoints during it. Files there before are untouched.
. "$IPSO_TEST_DIR/lib/common.sh"
. "$IPSO_TEST_DIR/faults/user_lib.sh"
export IPSO_CACHE_DIR=$work/cache
scale=${IPSO_TEST_TIME_SCALE:-1}
run=$work/run
mkdir -p "$run"
printf 'precious data\n' >"$run/precious.dat"
cat >"$run/slow.cu" <<'SRC'
/* The sphere, 1 ms per call. */
#include <time.h>
ipso_real slow(const ipso_real *x, int d)
{
  struct timespec ms = {0, 1000000};
  nanosleep(&ms, NULL);
  ipso_real s = 0;
  for (int i = 0; i < d; i++) s += x[i] * x[i];
  return s;
}
SRC
# 16 particles x 4 dimensions: the CPU backend's segment would be 10,000
# iterations, 160 s of objective calls.
user_cfg "$run/s.toml" slow.cu slow 4 16 100000
sed -i -e 's/^output = ""$/output = "s.h5"/' -e 's/^checkpoint = ""$/checkpoint = "s.ckpt.h5"/' \
  -e 's/^\[run\]$/[run]\nwatchdog = "00:00:04"/' "$run/s.toml"
snapshot "$run"
cd "$run" || exit 1
"$IPSO_BIN" s.toml >s.log 2>&1 &
pid=$!
sleep 6
kill -TERM "$pid"
t0=$(date +%s.%N)
wait "$pid"
rc=$?
t1=$(date +%s.%N)
[ "$rc" -eq 3 ] && pass "SIGTERM during a slow segment: exit 3" || { fail "exit $rc, want 3"; tail -5 s.log; }
lag=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.1f", b - a}')
# The stop comes at the end of a slice (~1 s) plus a checkpoint; without
# slices it came after the 160 s segment.
if awk -v l="$lag" -v s="$scale" 'BEGIN {exit !(l < 30 * s)}'; then
  pass "stopped $lag s after the signal (a segment is 160 s)"
else
  fail "stopped $lag s after the signal"
fi
grep -q "no progress" s.log && fail "the watchdog (4 s) fired on a healthy run"
grep -q "checkpoint written to s.ckpt.h5" s.log && pass "the stop wrote a checkpoint" || fail "no checkpoint: $(tail -3 s.log)"
stopped=$(sed -n 's/.*stopped at iteration \([0-9]*\).*/\1/p' s.log)
[ -n "$stopped" ] && [ "$stopped" -gt 0 ] && [ "$stopped" -lt 10000 ] &&
  pass "stopped at iteration $stopped, inside the first segment" || fail "stopped at '$stopped'"
untouched "$run" "slow objective, stop"

# Time-based checkpoints are written during a long segment.
rm -f s.h5 s.ckpt.h5 s.ckpt.h5.prev
sed -i "s/^checkpoint = \"s.ckpt.h5\"$/checkpoint = \"s.ckpt.h5\"\ncheckpoint_interval = \"00:00:02\"/" s.toml
"$IPSO_BIN" s.toml >c.log 2>&1 &
pid=$!
sleep 7
ls s.ckpt.h5 >/dev/null 2>&1 && pass 'checkpoint_interval = "00:00:02": a checkpoint within 7 s' || fail 'no checkpoint after 7 s'
kill -TERM "$pid"
wait "$pid"
finish
