#!/bin/bash
# Stops and exit codes: the code says what happened. Every case checks the
# exit code, the message and the sha256 of every file there before that is
# not the run's own (the config and a file of the user's), and where it
# stops with a checkpoint, that the checkpoint is at the stop's iteration
# and continues to the uninterrupted run's result.
#  - SIGHUP (a closed terminal or ssh session) and SIGPIPE (sent, and for
#    real: the reader of the progress lines gone, `| head -n 1`) stop with
#    a checkpoint and exit 3, like SIGTERM.
#  - A stop with checkpoints off exits 4, not 3 (nothing to continue from,
#    so no batch script requeues it), and says so.
#  - With only the checkpoint kept before the last one left (.prev), a
#    fresh start is refused naming --restart .prev, and that advice works;
#    --resume continues from .prev, saying so.
. "$IPSO_TEST_DIR/lib/common.sh"
. "$IPSO_TEST_DIR/faults/lib.sh"
. "$IPSO_TEST_DIR/faults/user_lib.sh"
need_h5py
attr() { h5get "$1" "/@$2"; }
R=$work/run
mkdir -p "$R"
cd "$R" || exit 1
printf 'notes of the user\n' >notes.txt
# A run of a few seconds at least, with checkpoints, segments of 50.
ipso_config long.toml rastrigin 10 64 3000000 migration.interval=50 'run.output="run.h5"' \
  'output.checkpoint="run.ckpt.h5"'

# keep_user_files: records the sha256 of the config and the user's file.
keep_user_files() { sha256sum long.toml notes.txt >"$work/user.sum"; }
user_files_kept() {
  sha256sum --quiet -c "$work/user.sum" && pass "$1: the config and the user's file untouched" ||
    fail "$1: the config or the user's file changed"
}

# stopped_by SIG NAME [ARGS...]: a run stopped by SIG once under way exits
# 3 with "stopped at iteration N by NAME; checkpoint written", the
# checkpoint at N.
stopped_by() {
  local sig=$1 name=$2
  shift 2
  rm -f run.h5 run.ckpt.h5 run.ckpt.h5.prev
  keep_user_files
  "$IPSO_BIN" long.toml "$@" >log 2>&1 &
  job=$!
  wait_for 30 grep -q "island 0:" log || fail "SIG$sig: the run did not start"
  sleep 0.5
  kill "-$sig" "$job"
  wait_job 60
  [ "$job_rc" -eq 3 ] && pass "SIG$sig: exit 3" || { fail "SIG$sig: exit $job_rc, want 3"; tail -5 log; }
  local n
  n=$(sed -n "s/^islandpso: stopped at iteration \([0-9]*\) by $name; checkpoint written to run.ckpt.h5$/\1/p" log)
  [ -n "$n" ] && pass "SIG$sig: 'stopped at iteration $n by $name; checkpoint written'" ||
    fail "SIG$sig: no stop message naming '$name': $(tail -3 log)"
  [ -n "$n" ] && [ "$(attr run.ckpt.h5 iteration)" = "$n" ] && pass "SIG$sig: checkpoint at iteration $n" ||
    fail "SIG$sig: checkpoint at '$(attr run.ckpt.h5 iteration 2>&1)', stopped at '$n'"
  user_files_kept "SIG$sig"
}
stopped_by HUP Hangup
stopped_by PIPE "Broken pipe"
# The continued run: from the checkpoint to the end of a shorter run, its
# result that of the run without a stop.
n=$(attr run.ckpt.h5 iteration)
ends=$((n + 200))
expect_rc 0 "continued from the SIGPIPE's checkpoint" "$IPSO_BIN" long.toml --restart run.ckpt.h5 \
  --set run.max_iterations=$ends
mkdir "$work/ref" && cp long.toml "$work/ref/" && (cd "$work/ref" && "$IPSO_BIN" long.toml \
  --set run.max_iterations=$ends >log 2>&1) || fail "the run without a stop"
same_result "$work/ref/run.h5" run.h5 "the continued run"

# A real broken pipe: the progress lines' reader gone after the first line.
rm -f run.h5 run.ckpt.h5 run.ckpt.h5.prev
keep_user_files
t0=$SECONDS
(
  "$IPSO_BIN" long.toml --set 'output.progress="lines"' 2>err.log
  echo "rc=$?" >rc.log
) | head -n 1 >first.log
wait_for 60 test -s rc.log
[ "$(cat rc.log)" = "rc=3" ] && pass "| head -n 1: exit 3 once the reader is gone" ||
  fail "| head -n 1: $(cat rc.log 2>&1); $(tail -3 err.log)"
[ -f run.ckpt.h5 ] && pass "| head -n 1: a checkpoint written ($(attr run.ckpt.h5 iteration))" ||
  fail "| head -n 1: no checkpoint"
[ $((SECONDS - t0)) -lt "$(scaled 60)" ] && pass "| head -n 1: ended after $((SECONDS - t0)) s" ||
  fail "| head -n 1: took $((SECONDS - t0)) s"
user_files_kept "| head -n 1"

# A stop with checkpoints off: exit 4.
rm -f run.h5 run.ckpt.h5 run.ckpt.h5.prev
keep_user_files
"$IPSO_BIN" long.toml --set 'output.checkpoint=""' >log 2>&1 &
job=$!
wait_for 30 grep -q "island 0:" log
sleep 0.5
kill -TERM "$job"
wait_job 60
[ "$job_rc" -eq 4 ] && pass "SIGTERM with checkpoints off: exit 4, not 3" || fail "checkpoints off: exit $job_rc, want 4"
grep -q "stopped at iteration [0-9]* by Terminated; no checkpoint (output.checkpoint is empty)" log &&
  pass "it says there is no checkpoint" || fail "checkpoints off: $(tail -3 log)"
user_files_kept "checkpoints off"
mkdir four && cp long.toml four/
(cd four && exec "$MPIEXEC" "$MPIEXEC_NUMPROC_FLAG" 2 "$IPSO_BIN" long.toml --set 'output.checkpoint=""' \
  --set 'run.time_limit="00:00:02"') >four.log 2>&1
rc=$?
[ "$rc" -eq 4 ] && pass "the time limit on 2 ranks with checkpoints off: mpirun exits 4" ||
  fail "time limit, checkpoints off, 2 ranks: exit $rc: $(tail -3 four.log)"
grep -q "stopped at iteration [0-9]* by the time limit; no checkpoint" four.log && pass "and says why" ||
  fail "time limit, checkpoints off: $(tail -3 four.log)"

# Only the checkpoint kept before the last is left.
rm -f run.h5 run.ckpt.h5 run.ckpt.h5.prev
ipso_config short.toml rastrigin 5 16 120 'run.output="run.h5"' 'output.checkpoint="run.ckpt.h5"' \
  output.checkpoint_interval=40
expect_rc 0 "a run with two checkpoints" "$IPSO_BIN" short.toml --set run.max_iterations=80
rm run.ckpt.h5
mkdir -p kept && cp run.h5 run.ckpt.h5.prev kept/
refused_in "$R" "only .prev left, fresh start" \
  "checkpoint 'run.ckpt.h5.prev' exists from an earlier run, but its successor 'run.ckpt.h5' does not: continue from it with --restart run.ckpt.h5.prev" \
  "$IPSO_BIN" short.toml
expect_rc 0 "only .prev left, --resume continues from it" "$IPSO_BIN" short.toml --resume
echo "$out" | grep -q "resuming from the one kept before it, 'run.ckpt.h5.prev'" &&
  pass "and says so" || fail "--resume from .prev: $(echo "$out" | tail -3)"
[ "$(h5get run.h5 /result/iteration)" = 120 ] && pass "and the run finished at 120" ||
  fail "result at $(h5get run.h5 /result/iteration 2>&1)"
rm -f run.ckpt.h5 && cp kept/run.h5 kept/run.ckpt.h5.prev .
expect_rc 0 "the advice works: --restart run.ckpt.h5.prev" "$IPSO_BIN" short.toml --restart run.ckpt.h5.prev
[ "$(h5get run.h5 /result/iteration)" = 120 ] && pass "and the run finished at 120" ||
  fail "result at $(h5get run.h5 /result/iteration 2>&1)"
finish
