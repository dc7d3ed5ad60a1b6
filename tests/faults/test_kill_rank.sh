#!/bin/bash
# kill -9 of one rank of a 4-rank run, at a random time after its first
# checkpoint, in 10 trials: the job ends non-zero within 10 s with no process
# left, and the last checkpoint restarts the run to the very same result
# (summary, output file and final checkpoint identical to an uninterrupted run).
. "$IPSO_TEST_DIR/lib/common.sh"
. "$IPSO_TEST_DIR/faults/lib.sh"
need_h5py
trials=${IPSO_KILL_TRIALS:-10}
seed=${IPSO_FAULT_SEED:-$((RANDOM * 32768 + RANDOM))}
RANDOM=$seed
echo "random seed $seed (IPSO_FAULT_SEED=$seed repeats this run)"

# About 2 s of iterations on 4 ranks; a checkpoint every 500 iterations and
# history, migration and snapshots in between, so that a kill can land in
# any phase.
ipso_config "$work/kill.toml" rastrigin 10 64 25000 'run.output="run.h5"' run.seed=1234 \
  migration.interval=50 migration.migrants=4 output.history_interval=10 \
  output.snapshot_interval=5000 output.checkpoint_interval=500 'output.checkpoint="run.ckpt.h5"'

mkdir "$work/ref"
start_job "$work/ref" 4 "$work/kill.toml"
wait_job 120
[ "$job_rc" -eq 0 ] || { fail "reference run: exit $job_rc"; tail -n 5 "$work/ref/log"; finish; }
h5_result "$work/ref/run.h5" >/dev/null || { fail "reference run wrote no /result"; finish; }

checkpoint_exists() { [ -e "$dir/run.ckpt.h5" ]; }
for i in $(seq 1 "$trials"); do
  dir=$work/t$i
  mkdir "$dir"
  start_job "$dir" 4 "$work/kill.toml"
  if ! wait_for 60 checkpoint_exists; then
    fail "trial $i: no checkpoint within 60 s"
    kill_jobs
    continue
  fi
  delay=$(awk -v r=$RANDOM 'BEGIN { printf "%.3f", r % 1000 / 1000 }')
  rank=$((RANDOM % 4))
  sleep "$delay"
  victim=$(rank_pid "$rank")
  if [ -z "$victim" ]; then
    fail "trial $i: rank $rank not found (the run ended before the kill; make it longer)"
    wait_job 30
    continue
  fi
  t0=$(now)
  kill -KILL "$victim"
  wait_job 30
  wait_for 10 no_job_pids
  took=$(elapsed "$t0")
  what="trial $i: rank $rank killed ${delay}s after the first checkpoint"
  if [ "$job_rc" -ne 0 ] && [ "$job_rc" -ne 124 ] && less "$took" "$(scaled 10)" && no_job_pids; then
    pass "$what: job ended with exit $job_rc after ${took}s, no process left"
  else
    fail "$what: exit $job_rc after ${took}s; left: $(job_pids | tr '\n' ' ')"
    kill_jobs
  fi
  # The checkpoint the kill left behind continues the run exactly.
  cp "$dir/log" "$dir/killed.log"
  start_job "$dir" 4 "$work/kill.toml" --restart run.ckpt.h5
  wait_job 120
  if [ "$job_rc" -ne 0 ]; then
    fail "trial $i: restart from the checkpoint: exit $job_rc"
    grep -v -e "^---" -e "^$" "$dir/log" | head -n 8
    continue
  fi
  same_result "$work/ref/run.h5" "$dir/run.h5" "trial $i: restart reproduces the uninterrupted result"
  same_h5 "$work/ref/run.h5" "$dir/run.h5" "trial $i: output identical to the uninterrupted run"
  same_h5 "$work/ref/run.ckpt.h5" "$dir/run.ckpt.h5" "trial $i: final checkpoint identical"
done
finish
