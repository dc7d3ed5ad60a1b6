# shellcheck shell=bash
# The body of every islandpso batch script (jobs/*.sbatch source it after
# their #SBATCH lines and settings): start islandpso on the job's tasks, pass
# the time-limit warning and scancel on to it as SIGUSR1, requeue the job
# after a stop until the run is finished. See jobs/README.md.
#
# Settings (from the sourcing script or the environment at submission):
#   IPSO_MODULES       modules to load, space separated, e.g. "openmpi/4.1 hdf5/1.14-mpi cuda/12.4"
#   IPSO_BIN           the islandpso binary: a path, or a name looked up on PATH
#   IPSO_LAUNCHER      srun (direct launch, recommended) or mpirun
#   IPSO_SRUN_MPI      srun --mpi plugin for the ranks (Open MPI: pmix); empty: the site's MpiDefault
#   IPSO_LAUNCH_OPTS   extra options for srun or mpirun (split at spaces)
#   IPSO_MAX_REQUEUES  most times the job requeues itself (a guard against a loop)
IPSO_MODULES=${IPSO_MODULES-}
IPSO_BIN=${IPSO_BIN:-islandpso}
IPSO_LAUNCHER=${IPSO_LAUNCHER:-srun}
IPSO_SRUN_MPI=${IPSO_SRUN_MPI-}
IPSO_LAUNCH_OPTS=${IPSO_LAUNCH_OPTS-}
IPSO_MAX_REQUEUES=${IPSO_MAX_REQUEUES:-20}

set -euo pipefail

say() { printf 'islandpso-job: %s\n' "$*"; }
die() {
  local code=$1
  shift
  printf 'islandpso-job: error: %s\n' "$*" >&2
  exit "$code"
}

# Signals to this script (SIGUSR1: the time-limit warning of --signal=B:USR1;
# SIGTERM: scancel, the time limit itself, preemption) are passed on as
# SIGUSR1, the one signal both srun and mpirun forward to the ranks without
# ending the job. Only a stop without SIGTERM/SIGINT requeues the job.
# A signal is passed on only once every rank handles it (islandpso creates
# IPSO_READY_FILE then): earlier, a rank still loading would die of it and
# the launcher may drop it or die itself; until then it is kept pending.
step=
got=
pending=
ready=
# shellcheck disable=SC2317 # called by the traps and the wait loop
forward_pending() {
  if [ -n "$pending" ] && [ -n "$step" ] && [ -e "$ready" ]; then
    kill -USR1 "$step" 2>/dev/null || true
    pending=
  fi
}
# shellcheck disable=SC2317 # called by the traps
on_signal() {
  [ -n "$got" ] || got=$1
  if [ "$1" = USR1 ]; then
    say "$(date '+%F %T') SIGUSR1 (time-limit warning): asking islandpso to checkpoint and stop"
  else
    say "$(date '+%F %T') SIG$1: asking islandpso to checkpoint and stop; the job will not be requeued"
  fi
  pending=1
  forward_pending
}
trap 'on_signal USR1' USR1
trap 'on_signal TERM' TERM
trap 'on_signal INT' INT

[ -n "${SLURM_JOB_ID:-}" ] || die 2 "not inside a Slurm job; submit with: sbatch $0 CONFIG [islandpso options]"
case $IPSO_MAX_REQUEUES in
'' | *[!0-9]*) die 2 "IPSO_MAX_REQUEUES must be a number, not '$IPSO_MAX_REQUEUES'" ;;
esac
[ $# -ge 1 ] || die 2 "no config file; submit with: sbatch SCRIPT CONFIG [islandpso options]"
config=$1
shift
if ! { [ -f "$config" ] && [ -r "$config" ]; }; then die 2 "cannot read the config '$config' (from $PWD)"; fi

if [ -n "$IPSO_MODULES" ]; then
  type module >/dev/null 2>&1 || die 2 "IPSO_MODULES is set but there is no 'module' command (try '#!/bin/bash -l')"
  set +u # module scripts are not written for 'set -u'
  # shellcheck disable=SC2086 # one word per module
  module load $IPSO_MODULES || die 2 "module load $IPSO_MODULES failed"
  set -u
fi
bin=$(command -v "$IPSO_BIN") ||
  die 2 "islandpso not found (IPSO_BIN=$IPSO_BIN): set IPSO_BIN to its path or load its module with IPSO_MODULES"

# The job's log and this script as submitted (for the messages).
job=$(scontrol show job "$SLURM_JOB_ID" 2>/dev/null) || true
log=$(sed -n 's/^ *StdOut=//p' <<<"$job" | head -n 1)
script=$(sed -n 's/^ *Command=\([^ ]*\).*/\1/p' <<<"$job" | head -n 1)

# The user's options on the first start. A requeued start continues from the
# config's checkpoint instead: it drops --overwrite (never clobber the output
# this job has written), --resume and --restart PATH, and adds --resume.
restarts=${SLURM_RESTART_COUNT:-0}
keep=()
skip=0
for a in "$@"; do
  if [ "$skip" -eq 1 ]; then
    skip=0
    continue
  fi
  case $a in
  --overwrite | --resume | --restart=*) ;;
  --restart) skip=1 ;;
  *) keep+=("$a") ;;
  esac
done
if [ "$restarts" -eq 0 ]; then
  args=("$@")
else
  args=("${keep[@]}" --resume)
fi
again="sbatch $(printf '%q ' "${script:-SCRIPT}" "$config" "${keep[@]}")--resume"

# One OpenMP thread per allocated CPU (the CPU backend); srun in Slurm 22.05
# and later no longer takes --cpus-per-task from the job by itself.
cpus=${SLURM_CPUS_PER_TASK:-}
[ -z "$cpus" ] || export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$cpus}
case $IPSO_LAUNCHER in
srun)
  launch=(srun --kill-on-bad-exit=1 ${IPSO_SRUN_MPI:+"--mpi=$IPSO_SRUN_MPI"} ${cpus:+"--cpus-per-task=$cpus"})
  ;;
mpirun)
  # Open MPI's mpirun ends the job when it gets SIGTERM (as every process of
  # the job does at scancel or the time limit) or when a rank exits non-zero
  # (3 after a stop): it signals the ranks and sends SIGKILL about twice this
  # many seconds later. 15: time for a checkpoint, about Slurm's default
  # KillWait of 30 s; mpirun also ends that much later after a stop.
  export OMPI_MCA_odls_base_sigkill_timeout=${OMPI_MCA_odls_base_sigkill_timeout:-15}
  launch=(mpirun -n "${SLURM_NTASKS:-1}")
  ;;
*) die 2 "IPSO_LAUNCHER must be srun or mpirun, not '$IPSO_LAUNCHER'" ;;
esac
# shellcheck disable=SC2206 # options split at spaces
launch+=($IPSO_LAUNCH_OPTS)

# srun can return 0 for a step that never ran (when Slurm aborts its launch):
# a 0 counts only with islandpso's own "finished" line in the job's log.
finished_lines() {
  if [ -f "$log" ] && [ -r "$log" ]; then grep -Ec '^([0-9]+: *)?islandpso: finished at iteration' "$log" || true; fi
}
finished_before=$(finished_lines)

say "$(date '+%F %T') job $SLURM_JOB_ID, start $((restarts + 1)): ${SLURM_NTASKS:-1} islands on" \
  "${SLURM_JOB_NUM_NODES:-1} node(s) ${SLURM_JOB_NODELIST:-}"
if [ -n "$got" ]; then
  say "SIG$got came before islandpso started: not starting it"
  rc=3
else
  say "$(printf '%q ' "${launch[@]}" "$bin" "$config" "${args[@]}")"
  # In the job's directory, which every node of the job sees.
  ready="$PWD/.islandpso-ready.$SLURM_JOB_ID.$restarts.$$"
  rm -f "$ready"
  IPSO_READY_FILE=$ready "${launch[@]}" "$bin" "$config" "${args[@]}" &
  step=$!
  # A trapped signal ends 'wait' early; a pending signal is passed on once
  # the ranks are ready.
  while kill -0 "$step" 2>/dev/null; do
    forward_pending
    if [ -n "$pending" ]; then
      sleep 0.2 &
      wait $! || true
    else
      wait "$step" || true
    fi
  done
  rc=0
  wait "$step" || rc=$?
  step=
  rm -f "$ready"
fi

case $rc in
0)
  if [ -n "$finished_before" ] && [ "$(finished_lines)" -le "$finished_before" ]; then
    die 1 "the launcher returned 0 but islandpso did not report finishing in $log; see the launcher's messages above"
  fi
  say "$(date '+%F %T') islandpso finished"
  exit 0
  ;;
3) ;;
2) die 2 "islandpso refused the command line or the config (exit 2); see its message above" ;;
4)
  say "islandpso stopped early with checkpoints off (output.checkpoint = \"\"): nothing to continue from; not requeued"
  exit 4
  ;;
*) die "$rc" "islandpso failed (exit $rc); see the messages above" ;;
esac
if [ -n "$got" ] && [ "$got" != USR1 ]; then
  say "stopped by SIG$got; not requeued. To continue: $again"
  exit 3
fi
if [ "$restarts" -ge "$IPSO_MAX_REQUEUES" ]; then
  say "stopped after $restarts requeues (IPSO_MAX_REQUEUES); not requeued. To continue: $again"
  exit 3
fi
say "$(date '+%F %T') stopped early: requeueing job $SLURM_JOB_ID; the next start continues from the checkpoint"
trap - USR1 TERM INT # the requeue ends this script
# A busy controller may time out a request: asked again, up to three times.
for wait_s in 1 2 4 0; do
  scontrol requeue "$SLURM_JOB_ID" && exit 3
  [ "$wait_s" -gt 0 ] && sleep "$wait_s"
done
say "could not requeue (submitted with --no-requeue?). To continue: $again"
exit 3
