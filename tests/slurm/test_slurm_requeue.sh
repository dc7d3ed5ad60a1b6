#!/bin/bash
# Stopped Slurm jobs in a real (private, single-node) Slurm: they checkpoint, exit 3, requeue themselves and finish with the uninterrupted result; scancel stops without requeue.
#
# Every job: 4 tasks on the CPU backend, compared with the same config run
# uninterrupted by mpirun outside Slurm (HDF5 /result, /history and
# /snapshots bit for bit, the same /migrations rows, the same printed best
# fitness). Slurm holds a
# requeued job for about two minutes before it may start again; the test
# releases it (scontrol update StartTime=now) as soon as its previous start
# has left the node.
#   time_limit  islandpso.sbatch with --set run.time_limit="00:00:02" (every
#               start stops after 2 s of a 4 s run): at least one requeue, each
#               start after the first continues with --resume from the
#               checkpoint; COMPLETED 0:0 with the uninterrupted result.
#   usr1        islandpso.sbatch and islandpso-mpirun.sbatch, each sent the
#               time-limit warning by hand once its first checkpoint exists
#               (scancel --signal=USR1 --batch: what --signal=B:USR1@120 does
#               at the time): the script passes it on, islandpso stops "by
#               User defined signal 1", the job requeues once and ends
#               COMPLETED 0:0 with the uninterrupted result.
#   scancel     a plain scancel: islandpso stops (by Slurm's SIGTERM or by
#               the SIGUSR1 the script sends on it, whichever comes first)
#               with a checkpoint at that iteration, the script does not requeue, the
#               job is CANCELLED with ExitCode 3:0 (the script's) and no
#               restart, and the log says how to continue; submitting it with
#               --resume (as the log says) finishes with the uninterrupted
#               result.
. "$IPSO_TEST_DIR/lib/common.sh"
. "$IPSO_TEST_DIR/slurm/run_cfg.sh"
. "$IPSO_TEST_DIR/slurm/slurm_cluster.sh"
slurm_deadline 420
slurm_start
its=12000
jobs=$IPSO_SOURCE_DIR/jobs
reference "$its"

# submit DIR SCRIPT [islandpso options]: the job id.
submit() {
  local dir=$1 script=$2
  shift 2
  mkdir -p "$dir"
  [ -f "$dir/run.toml" ] || write_run_cfg "$dir/run.toml" "$its"
  sbatch --parsable --chdir="$work/$dir" "$jobs/$script" run.toml "$@"
}

# started ID DIR: waits until job ID runs and its first checkpoint exists.
started() {
  slurm_wait_for 90 "job $1 to run" job_running "$1" &&
    wait_file "$2/run.ckpt.h5" 90
}

# check_requeued ID DIR WHAT WHY MIN: finished after at least MIN requeues,
# each stop by WHY, with the uninterrupted result.
check_requeued() {
  local id=$1 dir=$2 what=$3 why=$4 min=$5 log n stops
  log=$(job_log "$id")
  n=$(job_field "$id" Restarts)
  if [ "$(job_field "$id" JobState) $(job_field "$id" ExitCode)" = "COMPLETED 0:0" ] && [ "$n" -ge "$min" ]; then
    pass "$what: $(job_summary "$id")"
  else
    fail "$what: $(job_summary "$id"), want COMPLETED 0:0 after at least $min requeue(s)"
    tail -40 "$log"
    return
  fi
  stops=$(grep -c "stopped at iteration [0-9]* by $why; checkpoint written to run.ckpt.h5" "$log")
  [ "$stops" -eq "$n" ] && pass "$what: $n stop(s) by $why, each with a checkpoint" ||
    fail "$what: $stops stop message(s) by '$why' for $n restart(s)"
  [ "$(grep -c 'islandpso-job: .* requeueing job' "$log")" -eq "$n" ] && pass "$what: the script requeued $n time(s)" ||
    fail "$what: requeue messages do not match $n restart(s)"
  [ "$(grep -c "restart from *run.ckpt.h5" "$log")" -eq "$n" ] &&
    grep -q "islandpso-job: .*start $((n + 1)):" "$log" && grep -q " --resume" "$log" &&
    pass "$what: starts 2..$((n + 1)) continued from the checkpoint (--resume)" ||
    { fail "$what: the requeued starts did not continue from the checkpoint"; tail -40 "$log"; }
  same_run ref/run.h5 ref/log "$dir/run.h5" "$log" "$what"
}

# run.time_limit on every start: stop, requeue, continue until finished.
t=$(submit tl islandpso.sbatch --set 'run.time_limit="00:00:02"') || fail "sbatch"
job_wait "$t" 150 || fail "time-limited job did not end"
check_requeued "$t" tl "run.time_limit job" "the time limit" 1

# The time-limit warning, sent by hand, through srun and through mpirun.
for v in srun:islandpso.sbatch mpirun:islandpso-mpirun.sbatch; do
  dir=usr1-${v%%:*}
  id=$(submit "$dir" "${v#*:}") || fail "sbatch ${v#*:}"
  if started "$id" "$dir"; then
    scancel --signal=USR1 --batch "$id"
    job_wait "$id" 150 || fail "$dir job did not end"
    grep -q "islandpso-job: .* SIGUSR1 (time-limit warning)" "$(job_log "$id")" &&
      pass "$dir: the script got the warning" || fail "$dir: no warning in the log"
    check_requeued "$id" "$dir" "$dir job" "User defined signal 1" 1
  else
    fail "$dir job never got going: $(job_summary "$id")"
    tail -20 "$(job_log "$id")"
  fi
done

# scancel: checkpoint, no requeue; continued by a new job with --resume.
id=$(submit cancel islandpso.sbatch) || fail "sbatch"
if started "$id" cancel; then
  scancel "$id"
  job_wait "$id" 60 || fail "cancelled job did not end"
  log=$(job_log "$id")
  [ "$(job_summary "$id")" = "CANCELLED 3:0 restarts=0" ] && pass "scancel: $(job_summary "$id")" ||
    fail "scancel: $(job_summary "$id"), want CANCELLED 3:0 (the script's exit code) without restart"
  # The job's end comes before its log is complete: wait for the script's last word.
  slurm_wait_for 30 "the script's last message" grep -q "not requeued. To continue: sbatch $jobs/islandpso.sbatch run.toml --resume" "$log" &&
    pass "scancel: not requeued, the log says how to continue" || { fail "scancel: no 'not requeued' message"; tail -20 "$log"; }
  n=$(stopped_at "$log")
  grep -Eq "stopped at iteration $n by (Terminated|User defined signal 1); checkpoint written" "$log" &&
    [ "$(ckpt_iteration cancel/run.ckpt.h5)" = "$n" ] && pass "scancel: checkpoint at the stop (iteration $n)" ||
    { fail "scancel: no checkpoint at the stop"; tail -20 "$log"; }
  r=$(submit cancel islandpso.sbatch --resume) && job_wait "$r" 120 || fail "--resume job did not end"
  [ "$(job_summary "$r")" = "COMPLETED 0:0 restarts=0" ] && grep -q "restart from *run.ckpt.h5" "$(job_log "$r")" &&
    pass "resubmitted with --resume: continued, $(job_summary "$r")" || { fail "--resume job: $(job_summary "$r")"; tail -20 "$(job_log "$r")"; }
  same_run ref/run.h5 ref/log cancel/run.h5 "$(job_log "$r")" "cancelled and resumed job"
else
  fail "job to cancel never got going: $(job_summary "$id")"
fi
finish
