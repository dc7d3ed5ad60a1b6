# Shared by the fault-injection tests: background jobs under mpirun, their
# ranks' process ids, polling with deadlines, and a cleanup that leaves no
# process and no mount behind. Source it after tests/lib/common.sh.
#
# Every job is started with its config at an absolute path inside $work, so
# "the job's processes" are exactly those whose command line names $work.

mounts=()

# kill_jobs: continues (if stopped) and kills what is left of our jobs.
kill_jobs() {
  local pid
  for pid in $(job_pids); do
    kill -CONT "$pid" 2>/dev/null
    kill -KILL "$pid" 2>/dev/null
  done
}

# faults_cleanup: kills what is left of our jobs, then unmounts our mounts.
faults_cleanup() {
  local m
  kill_jobs
  for m in "${mounts[@]}"; do umount -l "$m" 2>/dev/null; done
}
trap 'faults_cleanup; rm -rf "$work"' EXIT

now() { echo "$EPOCHREALTIME"; }
# elapsed T0: seconds since T0 (from now), with millisecond precision.
elapsed() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f", b - a }'; }
# less A B: whether the number A is less than B.
less() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }

# job_pids: the processes of our jobs (mpirun and ranks), one per line.
job_pids() { pgrep -f -- "$work/"; }

# rank_pid N: the process id of rank N of the running job (empty if none).
rank_pid() {
  local pid exe
  exe=$(readlink -f "$IPSO_BIN")
  for pid in $(job_pids); do
    [ "$(readlink -f "/proc/$pid/exe" 2>/dev/null)" = "$exe" ] || continue
    tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$1" && echo "$pid"
  done
}

# start_job DIR N ARGS...: runs islandpso ARGS on N ranks in DIR in the
# background (stdout and stderr in DIR/log); its launcher's id in $job.
start_job() {
  local dir=$1 n=$2
  shift 2
  (cd "$dir" && exec "$MPIEXEC" "$MPIEXEC_NUMPROC_FLAG" "$n" "$IPSO_BIN" "$@") >"$dir/log" 2>&1 &
  job=$!
}

# wait_for SECONDS COMMAND...: polls COMMAND every 20 ms; 0 once it
# succeeds, 1 when SECONDS (times IPSO_TEST_TIME_SCALE) have passed.
wait_for() {
  local limit t0
  limit=$(scaled "$1")
  shift
  t0=$(now)
  until "$@"; do
    less "$(elapsed "$t0")" "$limit" || return 1
    sleep 0.02
  done
}

running() { kill -0 "$job" 2>/dev/null; }
not_running() { ! running; }
no_job_pids() { [ -z "$(job_pids)" ]; }

# wait_job SECONDS: waits for the job to end; its exit status in $job_rc
# (124 if it was still running after SECONDS and was killed).
wait_job() {
  if wait_for "$1" not_running; then
    wait "$job"
    job_rc=$?
  else
    kill_jobs
    wait "$job" 2>/dev/null
    job_rc=124
  fi
}

# summary LOG: the lines of a run's summary that a restart must reproduce
# (for runs without an output file; with one, same_result reads /result).
summary() { grep -E "finished at|best fitness|position" "$1"; }

# same_h5 A B WHAT: A and B hold the same values (wall-clock times aside).
same_h5() {
  if "$IPSO_PYTHON" "$IPSO_TEST_DIR/lib/h5compare.py" "$1" "$2" >"$work/cmp.log" 2>&1; then
    pass "$3"
  else
    fail "$3"
    head -n 8 "$work/cmp.log"
  fi
}

# need_h5py: skips the test (77) without the Python that has h5py.
need_h5py() {
  "$IPSO_PYTHON" -c "import h5py" 2>/dev/null && return 0
  echo "SKIP: $IPSO_PYTHON has no h5py (python3-h5py)"
  exit 77
}
