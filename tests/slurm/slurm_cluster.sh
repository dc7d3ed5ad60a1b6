# shellcheck shell=bash
# Sourced by the Slurm tests (after lib/common.sh): starts a private
# single-node Slurm (munged, slurmctld, slurmd, as root) in $work and stops
# it on exit, and helpers to submit and wait for jobs.
#
# The node is the test machine under its short host name, with 32 CPUs and
# 4 GPUs declared: the test machine has fewer cores (SlurmdParameters=
# config_overrides makes slurmd take the declared ones; TaskPlugin=task/none
# binds nothing, so tasks share the real cores) and its GPUs are /dev/null
# (enough for Slurm to set CUDA_VISIBLE_DEVICES; the runs use the CPU
# backend). OverTimeLimit=1: a job may run a minute past its time limit
# before Slurm ends it, so that a time-limit warning that Slurm's periodic
# check sends late (up to about 30 s) still comes before the end on a busy
# machine. Exit 77 where this cannot work: not root, Slurm or munge missing.

slurm_pids=()   # the daemons, started by this test
slurm_watch=    # the deadline's watcher

slurm_skip() {
  echo "SKIP: $*"
  [ -z "${slurm_watch:-}" ] || kill "$slurm_watch" 2>/dev/null
  exit 77
}

# slurm_now: seconds since the epoch.
slurm_now() { date +%s; }

# slurm_deadline SECONDS: ends the test (a failure, with the daemons
# stopped) after SECONDS whatever it is waiting for: CTest's own timeout
# would leave the daemons running. The watcher keeps no pipe of CTest open.
slurm_deadline() {
  local self=$$
  (
    trap 'kill "$nap" 2>/dev/null; exit 0' TERM
    sleep "$(($1 * ${IPSO_TEST_TIME_SCALE:-1}))" &
    nap=$!
    wait "$nap" && kill -TERM "$self"
  ) </dev/null >/dev/null 2>&1 &
  slurm_watch=$!
}

slurm_start() {
  [ "$(id -u)" -eq 0 ] || slurm_skip "starting slurmctld and slurmd needs root"
  PATH=$PATH:/usr/sbin:/sbin
  local b
  for b in munged slurmctld slurmd sbatch scontrol squeue scancel srun; do
    command -v "$b" >/dev/null || slurm_skip "'$b' not found (Debian: apt-get install slurm-wlm munge; tools/setup.sh)"
  done
  # A test run inside a Slurm job must not talk to that job's cluster.
  local inherited
  mapfile -t inherited < <(compgen -v SLURM_)
  [ ${#inherited[@]} -eq 0 ] || unset "${inherited[@]}"
  slurm_dir=$work/slurm
  mkdir -p "$slurm_dir"/{munge,state,spool,log,dev,pmix,tmp}
  chmod 755 "$slurm_dir" "$slurm_dir/munge"
  # IPSO_TEST_KEEP=1 keeps the directory (jobs' logs, Slurm's logs) for a look.
  trap 'slurm_stop; if [ -n "${IPSO_TEST_KEEP:-}" ]; then echo "kept $work"; else rm -rf "$work"; fi' EXIT
  trap 'echo "FAIL stopped by SIGTERM/SIGINT (the test ran past its time limit?)"; exit 1' TERM INT

  # munge with its own key and socket, so nothing of the machine's is touched.
  mungekey --create --keyfile="$slurm_dir/munge/munge.key" 2>/dev/null ||
    dd if=/dev/urandom of="$slurm_dir/munge/munge.key" bs=1024 count=1 status=none
  chmod 600 "$slurm_dir/munge/munge.key"
  local sock=$slurm_dir/munge/munge.socket
  munged --foreground --force --key-file="$slurm_dir/munge/munge.key" --socket="$sock" \
    --pid-file="$slurm_dir/munge/munged.pid" --seed-file="$slurm_dir/munge/munged.seed" \
    --log-file="$slurm_dir/log/munged.log" >/dev/null 2>&1 &
  slurm_pids=($!)
  slurm_wait_for 20 "munged" test -S "$sock" || slurm_fail_start

  local host ports
  host=$(hostname -s)
  ports=$("$IPSO_PYTHON" -c 'import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*(x.getsockname()[1] for x in s))') || slurm_fail_start
  local ctld_port slurmd_port
  read -r ctld_port slurmd_port <<<"$ports"
  local i
  for i in 0 1 2 3; do ln -s /dev/null "$slurm_dir/dev/nvidia$i"; done
  slurm_node=$host
  export SLURM_CONF=$slurm_dir/slurm.conf
  # Ranks started by srun do not know they share cores (mpirun is told by
  # OMPI_MCA_rmaps_base_oversubscribe): without this, ranks waiting in MPI
  # spin and starve the others, ten times slower on 2 cores.
  export OMPI_MCA_mpi_yield_when_idle=1
  cat >"$SLURM_CONF" <<EOF
ClusterName=ipsotest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sock
StateSaveLocation=$slurm_dir/state
SlurmdSpoolDir=$slurm_dir/spool
SlurmctldPidFile=$slurm_dir/slurmctld.pid
SlurmdPidFile=$slurm_dir/slurmd.pid
SlurmctldLogFile=$slurm_dir/log/slurmctld.log
SlurmdLogFile=$slurm_dir/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
MpiDefault=pmix
JobRequeue=1
ReturnToService=2
SlurmdParameters=config_overrides
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
GresTypes=gpu
KillWait=30
OverTimeLimit=1
MinJobAge=3600
NodeName=$host NodeAddr=127.0.0.1 CPUs=32 Boards=1 SocketsPerBoard=1 CoresPerSocket=32 ThreadsPerCore=1 RealMemory=4000 Gres=gpu:4 State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
  printf 'AutoDetect=off\nNodeName=%s Name=gpu File=%s/dev/nvidia[0-3]\n' "$host" "$slurm_dir" \
    >"$slurm_dir/gres.conf"
  # Job ids start at 1 in every private cluster, and the temporary files of
  # a job's step are named by its id: Slurm's PMIx plugin makes the step's
  # client directory under /tmp (spmix_appdir_<uid>_<job>.<step>) unless
  # told otherwise, Open MPI its session directory under TMPDIR and the
  # backing files of its shared memory under /dev/shm. So a step of another
  # test's cluster, or one left by a killed step, had the same names: the
  # step failed to launch ("task 0 launch failed: Unspecified error";
  # slurmd.log: "Cannot create directory ... File exists"), or its ranks
  # mapped another job's shared memory and crashed (seen with two of these
  # tests at once). All of them go into this cluster's directory (the jobs
  # inherit the environment).
  printf 'PMIxCliTmpDirBase=%s/pmix\n' "$slurm_dir" >"$slurm_dir/mpi.conf"
  export TMPDIR=$slurm_dir/tmp OMPI_MCA_btl_vader_backing_directory=$slurm_dir/tmp \
    OMPI_MCA_osc_sm_backing_directory=$slurm_dir/tmp OMPI_MCA_osc_rdma_backing_directory=$slurm_dir/tmp
  slurmctld -D -i -f "$SLURM_CONF" >"$slurm_dir/log/slurmctld.out" 2>&1 &
  slurm_pids+=($!)
  slurmd -D -f "$SLURM_CONF" -N "$host" >"$slurm_dir/log/slurmd.out" 2>&1 &
  slurm_pids+=($!)
  slurm_wait_for 60 "the node to be idle" slurm_node_idle || slurm_fail_start
  echo "slurm: private cluster up (node $host, ports $ctld_port $slurmd_port, $slurm_dir)"
}

slurm_node_idle() {
  [ "$(sinfo -h -n "$slurm_node" -o %T 2>/dev/null)" = idle ]
}

# slurm_wait_for SECONDS WHAT COMMAND...: polls COMMAND until it succeeds,
# for at most SECONDS times IPSO_TEST_TIME_SCALE.
slurm_wait_for() {
  local limit=$(($1 * ${IPSO_TEST_TIME_SCALE:-1})) what=$2 end
  shift 2
  end=$(($(slurm_now) + limit))
  until "$@"; do
    if [ "$(slurm_now)" -ge "$end" ]; then
      echo "waited $limit s for $what"
      return 1
    fi
    sleep 0.2
  done
}

slurm_fail_start() {
  echo "FAIL could not start the private Slurm; its logs:"
  tail -n 20 "$slurm_dir"/log/* 2>/dev/null
  exit 1
}

# Cancels this cluster's jobs, waits for their processes, stops the daemons.
slurm_stop() {
  [ -n "${slurm_watch:-}" ] && kill "$slurm_watch" 2>/dev/null
  local ids p
  if [ -n "${SLURM_CONF:-}" ] && [ -f "$SLURM_CONF" ]; then
    mapfile -t ids < <(squeue -h -o %i 2>/dev/null)
    if [ ${#ids[@]} -gt 0 ]; then
      scancel --full "${ids[@]}" 2>/dev/null
      slurm_wait_for 60 "the jobs to end" slurm_no_jobs_running
    fi
  fi
  for p in $(printf '%s\n' "${slurm_pids[@]}" | tac); do kill "$p" 2>/dev/null; done
  for p in "${slurm_pids[@]}"; do wait "$p" 2>/dev/null; done
  return 0
}

slurm_no_jobs_running() {
  [ -z "$(squeue -h -t running,completing,configuring -o %i 2>/dev/null)" ]
}

# job_field ID KEY: one field of 'scontrol show job' (e.g. JobState, ExitCode, Restarts).
job_field() {
  scontrol -o show job "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p" | head -1
}

# job_off_node ID: no process of job ID is left on the node (no step
# sockets in the spool directory, node idle).
job_off_node() {
  slurm_node_idle && ! compgen -G "$slurm_dir/spool/*_$1.*" >/dev/null &&
    ! compgen -G "$slurm_dir/spool/stepd.slurm.pmix.$1.*" >/dev/null
}

# job_release ID: lets a requeued job start again soon instead of after
# Slurm's requeue delay of about two minutes (scontrol update
# StartTime=now), once its previous start is off the node and the requeue
# (its new SubmitTime) is 2 s old. Released earlier, the new start is
# refused ("Job credential revoked": the node compares whole seconds) or its
# step cannot bind its PMIx socket.
job_release() {
  local requeued
  [ "$(job_field "$1" JobState)" = PENDING ] && [ "$(job_field "$1" Reason)" = BeginTime ] &&
    requeued=$(date -d "$(job_field "$1" SubmitTime)" +%s 2>/dev/null) &&
    [ "$(slurm_now)" -ge $((requeued + 2)) ] && job_off_node "$1" &&
    scontrol update JobId="$1" StartTime=now >/dev/null 2>&1
  return 0
}

# job_ended ID: job ID has ended (a requeued job has not) and is off the
# node, so that its exit code and log are complete (a cancelled job is
# CANCELLED while its script still runs).
job_ended() {
  case $(job_field "$1" JobState) in
  COMPLETED | FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY | BOOT_FAIL | DEADLINE | PREEMPTED)
    job_off_node "$1" ;;
  *) return 1 ;;
  esac
}

# job_running ID: job ID is running.
job_running() { [ "$(job_field "$1" JobState)" = RUNNING ]; }

# job_wait ID SECONDS: waits until job ID has ended, releasing it from each
# requeue delay. Returns 1 after SECONDS times IPSO_TEST_TIME_SCALE.
job_wait() {
  local end=$(($(slurm_now) + $2 * ${IPSO_TEST_TIME_SCALE:-1}))
  until job_ended "$1"; do
    if [ "$(slurm_now)" -ge "$end" ]; then
      echo "job $1 still $(job_field "$1" JobState) after $(($2 * ${IPSO_TEST_TIME_SCALE:-1})) s"
      return 1
    fi
    job_release "$1"
    sleep 0.3
  done
}

# job_log ID: the job's output file (StdOut).
job_log() { job_field "$1" StdOut; }

# job_summary ID: state, exit code and restarts on one line.
job_summary() {
  echo "$(job_field "$1" JobState) $(job_field "$1" ExitCode) restarts=$(job_field "$1" Restarts)"
}
