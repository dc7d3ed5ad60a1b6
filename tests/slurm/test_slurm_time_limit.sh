#!/bin/bash
# The real time-limit path in a real (private, single-node) Slurm: --time=1 minute with --signal=B:USR1@30 warns the job, which checkpoints, requeues and continues.
#
# Slurm's smallest time limit is a minute and it sends the warning signal
# from a periodic check (up to about 30 s late here), so a run that ends by
# itself would need minutes; this run is longer than any limit instead. The
# warning is due 30 s after the start: islandpso is running by then even on
# a busy machine, and a warning sent 30 s late still comes before Slurm ends
# the job (the test cluster's OverTimeLimit gives it a minute more). No
# assertion is on how long anything took: the waits are generous (times
# IPSO_TEST_TIME_SCALE) and only end a test that is stuck. The
# test asserts: Slurm's own SIGUSR1 reaches the batch script ("time-limit
# warning" in the log) before the job's end (the job never ends TIMEOUT),
# islandpso stops "by User defined signal 1" with a checkpoint at that
# iteration, the script requeues the job, and the second start continues from
# that checkpoint (--resume, "restart from"). Then scancel ends the second
# start: CANCELLED with one restart, a checkpoint beyond the first. (That a
# continued run ends with the uninterrupted result is test_slurm_requeue's.)
. "$IPSO_TEST_DIR/lib/common.sh"
. "$IPSO_TEST_DIR/slurm/run_cfg.sh"
. "$IPSO_TEST_DIR/slurm/slurm_cluster.sh"
slurm_deadline 420
slurm_start
mkdir long
write_run_cfg long/run.toml 100000000
id=$(sbatch --parsable --chdir="$work/long" --time=00:01:00 --signal=B:USR1@30 \
  "$IPSO_SOURCE_DIR/jobs/islandpso.sbatch" run.toml) || { fail "sbatch"; finish; }
t0=$SECONDS

# restarted: the job runs its second start and islandpso has continued.
restarted() {
  [ "$(job_field "$id" Restarts)" = 1 ] && [ "$(job_field "$id" JobState)" = RUNNING ] &&
    grep -q "restart from *run.ckpt.h5" "$(job_log "$id")"
}
wait_s=$(scaled 300)
end=$((SECONDS + wait_s))
until restarted; do
  # Only an ended job stops the wait: a requeue passes through states that
  # vary between Slurm versions, and scontrol can answer nothing on a busy
  # machine (seen once in a CI run, 30 s into the job).
  job_ended "$id" && break
  job_release "$id"
  [ "$SECONDS" -lt "$end" ] || break
  sleep 0.3
done
log=$(job_log "$id")
if ! restarted; then
  fail "no second start within $wait_s s: $(job_summary "$id")"
  tail -30 "$log"
  finish
fi
pass "requeued and running again after $((SECONDS - t0)) s: $(job_summary "$id")"
grep -q "islandpso-job: .* SIGUSR1 (time-limit warning)" "$log" && pass "Slurm's warning reached the script" ||
  fail "no warning in the log"
n=$(stopped_at "$log")
grep -q "stopped at iteration $n by User defined signal 1; checkpoint written to run.ckpt.h5" "$log" &&
  pass "first start stopped at iteration $n with a checkpoint" || fail "no stop by SIGUSR1"
grep -q "islandpso-job: .* requeueing job $id" "$log" && grep -q "islandpso-job: .*start 2:" "$log" &&
  grep -q " --resume" "$log" && pass "the script requeued the job; start 2 with --resume" ||
  fail "no requeue or no --resume"

# Ending the second start: islandpso checkpoints on SIGTERM, no requeue.
scancel "$id"
job_wait "$id" 60 || fail "the job did not end after scancel"
[ "$(job_summary "$id")" = "CANCELLED 3:0 restarts=1" ] && pass "scancel: $(job_summary "$id")" ||
  fail "scancel: $(job_summary "$id"), want CANCELLED 3:0 restarts=1"
slurm_wait_for 30 "the script's last message" grep -q "not requeued" "$log" ||
  fail "the script did not finish its log"
m=$(stopped_at "$log")
c=$(ckpt_iteration long/run.ckpt.h5)
[ -n "$m" ] && [ "$m" -gt "$n" ] && [ "$c" = "$m" ] && pass "second stop at iteration $m, checkpoint there" ||
  { fail "second stop at '$m' (first $n), checkpoint at '$c'"; tail -20 "$log"; }
grep -q TIMEOUT <<<"$(job_summary "$id")" && fail "the job hit its time limit"
finish
