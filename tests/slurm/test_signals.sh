#!/bin/bash
# Stopping a run without Slurm: SIGTERM or SIGUSR1 to mpirun, SIGINT twice, run.time_limit. Usage: test_signals.sh term|usr1|int_twice|time_limit
#
# What each mode asserts (Open MPI 4.1's mpirun, as in CI):
#   term        SIGTERM to mpirun of 4 ranks once the run is under way: Open
#               MPI aborts the job (SIGTERM to the ranks, SIGKILL after
#               odls_base_sigkill_timeout, which this test raises from 1 s to
#               3 s: enough for a test-sized checkpoint) and mpirun exits 1
#               whatever the ranks return; so: mpirun exits 1 (another MPI's
#               launcher: 1 or 3) within 60 s, rank 0 printed "stopped at
#               iteration N by Terminated; checkpoint written", the
#               checkpoint is at iteration N, and a restart from it exits 0
#               with the uninterrupted run's result.
#   usr1        the same with SIGUSR1, which mpirun forwards to the ranks and
#               then exits with their code: exit 3 exactly (within 60 s: Open
#               MPI takes about twice the kill timeout to end after a rank
#               exits non-zero).
#   int_twice   islandpso run directly (one island), SIGINT, then SIGINT again
#               before the run reaches the end of its segment: killed by
#               SIGINT (status 130), saying "second interrupt: stopping at
#               once, without a checkpoint", no stop message (a stop at the
#               segment's end would print one and exit 3), within 10 s, and the
#               checkpoint of before is untouched. The process is held with
#               SIGSTOP between the two signals so that the test does not race
#               the segment end.
#   time_limit  4 ranks with run.time_limit = 2 s on a run of about 4 s:
#               mpirun exits 3 within 60 s, "stopped at iteration N by the
#               time limit", checkpoint at iteration N, and the restart ends
#               with the uninterrupted run's result.
. "$IPSO_TEST_DIR/lib/common.sh"
. "$IPSO_TEST_DIR/slurm/run_cfg.sh"
# Every time bound is times IPSO_TEST_TIME_SCALE (scaled) and generous: they
# catch a hang, not slowness; what a stop did is asserted on its messages,
# exit status and checkpoint.
mode=${1:?usage: test_signals.sh term|usr1|int_twice|time_limit}
its=12000
# Open MPI's mpirun passes SIGTERM on to the ranks seconds late (measured:
# they stop about 5 s after it): the SIGTERM run must outlast that.
[ "$mode" = term ] && its=60000
export OMPI_MCA_odls_base_sigkill_timeout=3
openmpi=0
"$MPIEXEC" --version 2>&1 | grep -q "Open MPI" && openmpi=1

now_ms() { date +%s%3N; }

# restart_check: continues cut/ from its checkpoint and compares with ref/.
restart_check() {
  if (cd cut && mpi 4 run.toml --restart run.ckpt.h5 >log2 2>&1); then
    pass "restart from the checkpoint finished (exit 0)"
  else
    fail "restart from the checkpoint"
    tail -20 cut/log2
    return
  fi
  grep -q "restart from *run.ckpt.h5" cut/log2 && pass "restart announced" || fail "no 'restart from' line"
  same_run ref/run.h5 ref/log cut/run.h5 cut/log2 "continued run"
}

# check_stop WHY: the stop message names WHY and the checkpoint is at its iteration.
check_stop() {
  local n
  n=$(stopped_at cut/log)
  if [ -n "$n" ] && grep -q "stopped at iteration $n by $1; checkpoint written to run.ckpt.h5" cut/log; then
    pass "stop message: iteration $n by $1"
  else
    fail "no stop message naming '$1'"
    tail -20 cut/log
    return
  fi
  [ "$n" -gt 0 ] && [ "$n" -lt "$its" ] && pass "stopped mid-run ($n of $its)" || fail "stopped at $n of $its"
  local c
  c=$(ckpt_iteration cut/run.ckpt.h5)
  [ "$c" = "$n" ] && pass "checkpoint written at the stop (iteration $c)" ||
    fail "checkpoint at iteration '$c', stopped at $n"
}

# signal_mpirun SIG WANT: starts the run, sends SIG to mpirun after its second
# checkpoint, and checks mpirun's exit code against WANT ("1|3" for either).
signal_mpirun() {
  local sig=$1 want=$2 pid rc t0 dt
  mkdir cut
  write_run_cfg cut/run.toml "$its"
  (cd cut && exec "$MPIEXEC" "$MPIEXEC_NUMPROC_FLAG" 4 "$IPSO_BIN" run.toml >log 2>&1) &
  pid=$!
  # The second checkpoint (the first is iteration 0's, written at start):
  # the run is under way, with most of it still ahead.
  if ! wait_file cut/run.ckpt.h5.prev 60; then
    fail "no second checkpoint within $(scaled 60) s"
    kill -KILL "$pid"
    tail cut/log
    finish
  fi
  t0=$(now_ms)
  kill -"$sig" "$pid"
  rc=0
  wait "$pid" || rc=$?
  dt=$(($(now_ms) - t0))
  case "|$want|" in
  *"|$rc|"*) pass "mpirun exit $rc after SIG$sig (expected $want)" ;;
  *) fail "mpirun exit $rc after SIG$sig, expected $want"; tail -20 cut/log ;;
  esac
  [ "$dt" -le "$(scaled 60000)" ] && pass "ended ${dt} ms after SIG$sig" ||
    fail "took ${dt} ms to end after SIG$sig (bound $(scaled 60000) ms)"
}

case $mode in
term)
  reference "$its"
  if [ "$openmpi" -eq 1 ]; then signal_mpirun TERM 1; else signal_mpirun TERM "1|3"; fi
  check_stop Terminated
  restart_check
  ;;
usr1)
  reference "$its"
  signal_mpirun USR1 3
  check_stop "User defined signal 1"
  restart_check
  ;;
time_limit)
  reference "$its"
  mkdir cut
  write_run_cfg cut/run.toml "$its"
  t0=$(now_ms)
  rc=0
  (cd cut && mpi 4 run.toml --set 'run.time_limit="00:00:02"' >log 2>&1) || rc=$?
  dt=$(($(now_ms) - t0))
  [ "$rc" -eq 3 ] && pass "exit 3 at the time limit" || { fail "exit $rc at the time limit, want 3"; tail -20 cut/log; }
  [ "$dt" -le "$(scaled 60000)" ] && pass "ended after ${dt} ms (limit 2 s)" ||
    fail "ran ${dt} ms with a 2 s limit (bound $(scaled 60000) ms)"
  check_stop "the time limit"
  restart_check
  ;;
int_twice)
  mkdir one
  write_run_cfg one/run.toml 60000
  # Isolated islands: segments of thousands of iterations (about half a second).
  (cd one && exec "$IPSO_BIN" run.toml --set migration.interval=0 >log 2>&1) &
  pid=$!
  if ! wait_file one/run.ckpt.h5 60; then
    fail "no first checkpoint within $(scaled 60) s"
    kill -KILL "$pid"
    tail one/log
    finish
  fi
  before=$(stat -c '%i %Y %s' one/run.ckpt.h5)
  kill -STOP "$pid"
  kill -INT "$pid"
  kill -CONT "$pid"
  # Until a thread has taken the first SIGINT (bit 2 of the pending sets).
  end=$((SECONDS + $(scaled 10)))
  while grep -Eq '^(ShdPnd|SigPnd):.*[2367abef]$' "/proc/$pid/status" 2>/dev/null && [ "$SECONDS" -lt "$end" ]; do :; done
  kill -STOP "$pid"
  kill -INT "$pid"
  t0=$(now_ms)
  kill -CONT "$pid"
  rc=0
  wait "$pid" || rc=$?
  dt=$(($(now_ms) - t0))
  [ "$rc" -eq 130 ] && pass "killed by the second SIGINT (status 130)" || { fail "status $rc after two SIGINTs, want 130"; tail one/log; }
  [ "$dt" -le "$(scaled 10000)" ] && pass "ended ${dt} ms after the second SIGINT" ||
    fail "took ${dt} ms after the second SIGINT (bound $(scaled 10000) ms)"
  grep -q "stopped at iteration" one/log && fail "a stop message after two SIGINTs" || pass "no stop (no checkpoint) after two SIGINTs"
  grep -q "islandpso: second interrupt: stopping at once, without a checkpoint" one/log &&
    pass "the second SIGINT says so" || fail "no message for the second SIGINT: $(tail -3 one/log)"
  [ "$(stat -c '%i %Y %s' one/run.ckpt.h5)" = "$before" ] && ckpt_iteration one/run.ckpt.h5 >/dev/null &&
    pass "the checkpoint of before is untouched and readable" || fail "the checkpoint changed or is unreadable"
  ;;
*)
  echo "unknown mode '$mode'"
  exit 2
  ;;
esac
finish
