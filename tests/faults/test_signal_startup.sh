#!/bin/bash
# Stop signals during start-up. Each rank installs its stop-signal handler
# first thing in main(), before MPI_Init: two SIGUSR1 sent to every rank as
# soon as its handler is in place (read from /proc/PID/status), while MPI
# and the backend start, stop the run with a checkpoint and exit 3, on one
# process and on 2 ranks under mpirun; IPSO_READY_FILE, the job scripts'
# signal that every rank handles stop signals, is created; files there
# before are untouched. (A signal before
# main(), while the executable loads, cannot be handled: the job scripts
# hold signals back until IPSO_READY_FILE exists, see slurm_job_scripts.)
. "$IPSO_TEST_DIR/lib/common.sh"
. "$IPSO_TEST_DIR/lib/config.sh"
. "$IPSO_TEST_DIR/faults/user_lib.sh"
scale=${IPSO_TEST_TIME_SCALE:-1}
mkdir run
cd run || exit 1
ipso_config s.toml rastrigin 10 64 200000 run.backend='"cpu"' run.output='"s.h5"' \
  output.checkpoint='"s.ckpt.h5"' output.progress='"off"'
printf 'precious data\n' >precious.dat
snapshot "$work/run"

# handles_usr1 PID: whether PID has a handler for SIGUSR1 (bit 10 of SigCgt).
handles_usr1() {
  local mask
  mask=$(sed -n 's/^SigCgt:\s*//p' "/proc/$1/status" 2>/dev/null) || return 1
  [ -n "$mask" ] && (((16#$mask >> 9) & 1))
}

# early N: runs on N ranks, signals every rank twice once it handles SIGUSR1.
early() {
  local n=$1 pids=() p end
  rm -f s.h5 s.ckpt.h5 s.ckpt.h5.prev ready
  if [ "$n" -eq 1 ]; then
    IPSO_READY_FILE=$work/ready "$IPSO_BIN" s.toml >e.log 2>&1 &
  else
    IPSO_READY_FILE=$work/ready mpi "$n" s.toml >e.log 2>&1 &
  fi
  local launcher=$!
  end=$((SECONDS + 30 * scale))
  while [ ${#pids[@]} -lt "$n" ] && [ "$SECONDS" -lt "$end" ]; do
    mapfile -t pids < <(pgrep -f "^$IPSO_BIN s.toml")
  done
  for p in "${pids[@]}"; do
    until handles_usr1 "$p" || [ "$SECONDS" -ge "$end" ]; do :; done
    kill -USR1 "$p" && kill -USR1 "$p"
  done
  local rc=0
  wait "$launcher" || rc=$?
  [ "$rc" -eq 3 ] && pass "$n rank(s): two SIGUSR1 during start-up: exit 3" ||
    { fail "$n rank(s): exit $rc, want 3"; tail -8 e.log; }
  grep -q "checkpoint written to s.ckpt.h5" e.log && [ -f s.ckpt.h5 ] &&
    pass "$n rank(s): checkpoint written" || fail "$n rank(s): no checkpoint"
  [ -e "$work/ready" ] && pass "$n rank(s): IPSO_READY_FILE created" || fail "$n rank(s): no ready file"
}
early 1
early 2
untouched "$work/run" "signals during start-up"
finish
