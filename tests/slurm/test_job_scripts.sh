#!/bin/bash
# The job scripts' logic without Slurm: stand-ins for srun, mpirun and scontrol record what the scripts run, requeue and forward.
#
# Asserts: every script and the common body jobs/islandpso-job.sh parse
# (bash -n; shellcheck where installed); each script carries the directives
# the cluster behaviour rests on, is thin (its own settings and the lines that
# find and source the body, nothing of the body's logic) and finds the body
# from a spool copy (beside the binary, in an installation's share/islandpso,
# through IPSO_JOB_BODY, never through the job's Command; or exit 2 with a
# message), and sources none that another user owns or may write. Then, run with a Slurm-like environment: outside a job,
# without a config, or with no islandpso: exit 2 and a message. First start:
# the user's options reach islandpso unchanged (--overwrite too); srun gets
# --kill-on-bad-exit=1 and the task's CPUs, mpirun -n NTASKS with a raised
# odls_base_sigkill_timeout. A requeued start (SLURM_RESTART_COUNT=1): drops
# --overwrite, --resume and --restart PATH and adds --resume. Exit codes: 0
# exits 0 without requeue; 2 and 1 are passed on without requeue; 3 requeues
# (scontrol requeue JOBID) unless IPSO_MAX_REQUEUES is reached; 4 (a stop
# with checkpoints off) is passed on without requeue. SIGUSR1 to
# the script reaches the launcher as SIGUSR1 and the stop requeues; SIGTERM
# reaches it as SIGUSR1 and the stop does not requeue.
. "$IPSO_TEST_DIR/lib/common.sh"
jobs=$IPSO_SOURCE_DIR/jobs
scripts=(islandpso.sbatch islandpso-multinode.sbatch islandpso-mpirun.sbatch)
body=islandpso-job.sh

for s in "${scripts[@]}" "$body"; do
  f=$jobs/$s
  bash -n "$f" && pass "$s: bash -n" || fail "$s: syntax"
  if command -v shellcheck >/dev/null; then
    shellcheck -x -P SCRIPTDIR -S style "$f" >sc.log 2>&1 && pass "$s: shellcheck" || { fail "$s: shellcheck"; cat sc.log; }
  fi
done
for s in "${scripts[@]}"; do
  f=$jobs/$s
  for d in "--signal=B:USR1@120" "--requeue" "--open-mode=append" "--output=%x-%j.out" "--ntasks-per-node="; do
    grep -q "^#SBATCH $d" "$f" || fail "$s: no '#SBATCH $d'"
  done
  grep -Eq '^#SBATCH --(gpus-per-task=1|gres=gpu:)' "$f" || fail "$s: no GPU request"
  [ "$(sed -n 2p "$f" | cut -c1-12)" = "# islandpso " ] || fail "$s: line 2 is not its purpose"
  # Thin: sources the body, and none of the body's work is its own.
  grep -q '^\. "\$body"$' "$f" && ! grep -Eq 'scontrol requeue|trap |srun --kill|mpirun -n' "$f" &&
    [ "$(grep -cv '^#' "$f")" -le 30 ] && pass "$s: thin, sources $body" ||
    fail "$s: not a thin wrapper of $body ($(grep -cv '^#' "$f") lines that are not comments)"
done

# Stand-ins. The launchers log their arguments and the kill timeout, then
# exit $FAKE_RC, or with FAKE_RC=wait run until SIGUSR1 and exit 3.
mkdir bin
cat >bin/launcher <<'EOF'
#!/bin/bash
echo "$(basename "$0") $* sigkill_timeout=${OMPI_MCA_odls_base_sigkill_timeout:-unset}" >>"$FAKE_LOG"
[ -z "${FAKE_FINISH:-}" ] || echo "$FAKE_FINISH" >>"$FAKE_STDOUT"
if [ "$FAKE_RC" = wait ]; then
  # islandpso announces through IPSO_READY_FILE that its ranks handle stop
  # signals (here after FAKE_READY_DELAY s); a SIGUSR1 before that kills a
  # rank that is still loading.
  trap 'if [ -e "$IPSO_READY_FILE" ]; then echo "got USR1" >>"$FAKE_LOG"; exit 3; fi
        echo "got USR1 before ready" >>"$FAKE_LOG"; exit 138' USR1
  trap 'echo "got TERM" >>"$FAKE_LOG"; exit 143' TERM
  echo $$ >"$FAKE_LOG.running"
  sleep "${FAKE_READY_DELAY:-0}" &
  wait $!
  : >"$IPSO_READY_FILE"
  while :; do sleep 0.05; done
fi
exit "$FAKE_RC"
EOF
cat >bin/scontrol <<'EOF'
#!/bin/bash
echo "scontrol $*" >>"$FAKE_LOG"
[ "$1 $2" != "show job" ] || [ -z "${FAKE_STDOUT:-}" ] || echo "   StdOut=$FAKE_STDOUT"
[ "$1 $2" != "show job" ] || [ -z "${FAKE_COMMAND:-}" ] || echo "   Command=$FAKE_COMMAND"
EOF
chmod +x bin/launcher bin/scontrol
ln -s launcher bin/srun
ln -s launcher bin/mpirun
printf 'fake\n' >bin/islandpso
chmod +x bin/islandpso
: >cfg.toml
export PATH=$work/bin:$PATH FAKE_LOG=$work/fake.log IPSO_BIN=islandpso
unset IPSO_LAUNCHER IPSO_SRUN_MPI IPSO_LAUNCH_OPTS IPSO_MODULES IPSO_MAX_REQUEUES OMPI_MCA_odls_base_sigkill_timeout
job_env=(SLURM_JOB_ID=42 SLURM_NTASKS=4 SLURM_CPUS_PER_TASK=2 SLURM_JOB_NUM_NODES=1 SLURM_JOB_NODELIST=n1)

# job RC SCRIPT [VAR=value...] -- ARGS...: runs SCRIPT (in jobs/, or a path)
# as a job whose launcher exits RC; output in $out, exit code in $rc,
# launcher/scontrol calls in $calls.
job() {
  local fake=$1 script=$2 vars=()
  case $script in */*) ;; *) script=$jobs/$script ;; esac
  shift 2
  while [ "$1" != -- ]; do
    vars+=("$1")
    shift
  done
  shift
  : >"$FAKE_LOG"
  rc=0
  out=$(env "${job_env[@]}" "${vars[@]}" FAKE_RC="$fake" bash "$script" "$@" 2>&1) || rc=$?
  calls=$(cat "$FAKE_LOG")
}
# want WHAT RC [PATTERN...]: $rc is RC and each PATTERN is in the calls.
want() {
  local what=$1 code=$2 p ok=1
  shift 2
  [ "$rc" -eq "$code" ] || ok=0
  for p in "$@"; do
    case $p in
    !*) grep -qF -- "${p#!}" <<<"$calls" && ok=0 ;;
    *) grep -qF -- "$p" <<<"$calls" || ok=0 ;;
    esac
  done
  if [ $ok -eq 1 ]; then pass "$what"; else
    fail "$what (exit $rc, want $code)"
    echo "$out" | tail -8
    echo "calls: $calls"
  fi
}
bin=$work/bin/islandpso

rc=0
out=$(env -u SLURM_JOB_ID bash "$jobs/islandpso.sbatch" cfg.toml 2>&1) || rc=$?
[ "$rc" -eq 2 ] && grep -q "not inside a Slurm job" <<<"$out" && pass "outside a job: exit 2" || fail "outside a job: exit $rc: $out"
job 0 islandpso.sbatch --
[ "$rc" -eq 2 ] && grep -q "no config file" <<<"$out" && pass "no config: exit 2" || fail "no config: exit $rc: $out"
job 0 islandpso.sbatch -- missing.toml
[ "$rc" -eq 2 ] && grep -q "cannot read the config 'missing.toml'" <<<"$out" && pass "unreadable config: exit 2" || fail "unreadable config: exit $rc: $out"
job 0 islandpso.sbatch IPSO_BIN=no-such-islandpso -- cfg.toml
[ "$rc" -eq 2 ] && grep -q "islandpso not found" <<<"$out" && pass "no islandpso: exit 2" || fail "no islandpso: exit $rc: $out"
job 0 islandpso.sbatch IPSO_MAX_REQUEUES=many -- cfg.toml
[ "$rc" -eq 2 ] && grep -q "IPSO_MAX_REQUEUES must be a number" <<<"$out" && pass "bad IPSO_MAX_REQUEUES: exit 2" || fail "bad IPSO_MAX_REQUEUES: exit $rc"
job 0 islandpso.sbatch IPSO_LAUNCHER=aprun -- cfg.toml
[ "$rc" -eq 2 ] && grep -q "IPSO_LAUNCHER must be srun or mpirun" <<<"$out" && pass "unknown launcher: exit 2" || fail "unknown launcher: exit $rc"

job 0 islandpso.sbatch -- cfg.toml --set 'run.seed=7' --overwrite
want "first start: options unchanged, srun with --kill-on-bad-exit=1 and the CPUs; exit 0" 0 \
  "srun --kill-on-bad-exit=1 --cpus-per-task=2 $bin cfg.toml --set run.seed=7 --overwrite" "!scontrol requeue"
job 0 islandpso.sbatch IPSO_SRUN_MPI=pmix "IPSO_LAUNCH_OPTS=--gpu-bind=closest -l" -- cfg.toml
want "IPSO_SRUN_MPI and IPSO_LAUNCH_OPTS reach srun" 0 \
  "srun --kill-on-bad-exit=1 --mpi=pmix --cpus-per-task=2 --gpu-bind=closest -l $bin cfg.toml"
job 0 islandpso-mpirun.sbatch -- cfg.toml --resume
want "mpirun variant: mpirun -n 4, kill timeout 15 s, options unchanged" 0 \
  "mpirun -n 4 $bin cfg.toml --resume sigkill_timeout=15"
job 0 islandpso.sbatch SLURM_RESTART_COUNT=1 -- cfg.toml --overwrite --restart old.ckpt.h5 --set a=1 --restart=x.h5 --resume
want "requeued start: --overwrite, --restart, --resume dropped; --resume added" 0 \
  "srun --kill-on-bad-exit=1 --cpus-per-task=2 $bin cfg.toml --set a=1 --resume sigkill"
job 0 islandpso-multinode.sbatch SLURM_RESTART_COUNT=3 -- cfg.toml
want "multinode variant, requeued start" 0 "srun --kill-on-bad-exit=1 --cpus-per-task=2 $bin cfg.toml --resume"

job 3 islandpso.sbatch -- cfg.toml
want "exit 3: requeued" 3 "scontrol requeue 42"
grep -q "To continue" <<<"$out" && fail "exit 3 requeued but says 'To continue'" || true
job 3 islandpso-mpirun.sbatch SLURM_RESTART_COUNT=5 IPSO_MAX_REQUEUES=5 -- cfg.toml --set a=1
want "exit 3 after IPSO_MAX_REQUEUES requeues: not requeued" 3 "!scontrol requeue"
grep -q "not requeued. To continue: sbatch SCRIPT cfg.toml --set a=1 --resume" <<<"$out" &&
  pass "says how to continue" || fail "no continue hint: $out"
job 3 islandpso.sbatch SLURM_RESTART_COUNT=5 IPSO_MAX_REQUEUES=5 "FAKE_COMMAND=jobs/islandpso.sbatch cfg.toml" -- cfg.toml
grep -q "To continue: sbatch jobs/islandpso.sbatch cfg.toml --resume" <<<"$out" &&
  pass "names the script as submitted" || fail "no script name in the hint: $out"

# A signal before islandpso starts (here: during 'module load'): not started.
module() { kill -USR1 $$; }
export -f module
job 0 islandpso.sbatch IPSO_MODULES=islandpso -- cfg.toml
want "SIGUSR1 before the start: islandpso not started, job requeued" 3 "!srun" "scontrol requeue 42"
unset -f module
job 2 islandpso.sbatch -- cfg.toml
want "exit 2: passed on, not requeued" 2 "!scontrol requeue"
job 1 islandpso-multinode.sbatch -- cfg.toml
want "exit 1: passed on, not requeued" 1 "!scontrol requeue"
job 4 islandpso.sbatch -- cfg.toml
want "exit 4 (stopped, no checkpoint): passed on, not requeued" 4 "!scontrol requeue"
grep -q "nothing to continue from; not requeued" <<<"$out" && pass "exit 4: says why" || fail "exit 4: $out"
job 137 islandpso.sbatch -- cfg.toml
want "killed step (137): passed on, not requeued" 137 "!scontrol requeue"

# srun may return 0 for a step that never ran: 0 counts with islandpso's line in the log.
printf 'islandpso: finished at iteration 9\n' >job.out
job 0 islandpso.sbatch FAKE_STDOUT="$work/job.out" -- cfg.toml
[ "$rc" -eq 1 ] && grep -q "the launcher returned 0 but islandpso did not report finishing" <<<"$out" &&
  pass "exit 0 without a new 'finished' line in the log: exit 1" || fail "exit 0 without islandpso's line: exit $rc: $out"
job 0 islandpso.sbatch FAKE_STDOUT="$work/job.out" "FAKE_FINISH=2: islandpso: finished at iteration 9" -- cfg.toml
want "exit 0 with a new 'finished' line (srun -l labels too): exit 0" 0

# signal_job SIG SCRIPT [VAR=VALUE...]: runs SCRIPT with a launcher that
# waits for SIGUSR1, and sends SIG to the script once the launcher runs.
signal_job() {
  local sig=$1 script=$2 pid
  shift 2
  : >"$FAKE_LOG"
  rm -f "$FAKE_LOG.running"
  env "${job_env[@]}" FAKE_RC=wait "$@" bash "$jobs/$script" cfg.toml >sig.out 2>&1 &
  pid=$!
  local end=$((SECONDS + 20))
  until [ -e "$FAKE_LOG.running" ] || [ "$SECONDS" -ge "$end" ]; do sleep 0.05; done
  kill -"$sig" "$pid"
  rc=0
  wait "$pid" || rc=$?
  out=$(cat sig.out)
  calls=$(cat "$FAKE_LOG")
  # A launcher the script failed to stop must not outlive the test.
  [ -s "$FAKE_LOG.running" ] && kill "$(cat "$FAKE_LOG.running")" 2>/dev/null
  return 0
}
for s in islandpso.sbatch islandpso-mpirun.sbatch; do
  signal_job USR1 "$s"
  want "$s: SIGUSR1 to the script reaches the launcher as SIGUSR1; requeued" 3 "got USR1" "scontrol requeue 42"
  signal_job TERM "$s"
  want "$s: SIGTERM to the script reaches the launcher as SIGUSR1; not requeued" 3 "got USR1" "!got TERM" "!scontrol requeue"
  grep -q "stopped by SIGTERM; not requeued" <<<"$out" && pass "$s: says why" || fail "$s: $out"
  # A signal while the ranks start is kept until they are ready, then passed on.
  signal_job USR1 "$s" FAKE_READY_DELAY=1.5
  want "$s: SIGUSR1 during the ranks' start-up waits for IPSO_READY_FILE, then reaches them; requeued" 3 \
    "got USR1" "!got USR1 before ready" "scontrol requeue 42"
  ls .islandpso-ready.* >/dev/null 2>&1 && fail "$s: the ready file was left behind"
done

# Slurm runs a copy of the script from its spool directory: the body is
# found with the binary (next to a build's, in ../share/islandpso of an
# installed one) or through IPSO_JOB_BODY, never through the job's Command
# (a path with a space was cut there, and the part before it sourced);
# without either, exit 2 naming the path it looked for. A body, or its
# directory, that another user owns or may write to is not sourced.
mkdir spool
cp "$jobs/islandpso-mpirun.sbatch" spool/slurm_script
job 0 "$work/spool/slurm_script" -- cfg.toml
[ "$rc" -eq 2 ] && grep -q "cannot read the job body '$work/spool/islandpso-job.sh'" <<<"$out" &&
  ! grep -Eq '^(srun|mpirun)' <<<"$calls" && pass "spool copy, no body with the binary: exit 2, nothing started" ||
  fail "spool copy without the body: exit $rc: $out; calls: $calls"
cp "$jobs/islandpso-job.sh" bin/islandpso-job.sh
job 0 "$work/spool/slurm_script" -- cfg.toml
want "spool copy: the body beside the binary (a build tree)" 0 "mpirun -n 4 $bin cfg.toml sigkill_timeout=15"
# A Command whose path has a space: nothing at its cut-off part is sourced.
mkdir -p "$work/evil/jobs" "$work/evil dir/jobs"
printf 'echo PLANTED >>"%s/planted.log"\nexit 0\n' "$work" >"$work/evil/jobs/islandpso-job.sh"
job 0 "$work/spool/slurm_script" "FAKE_COMMAND=$work/evil dir/jobs/islandpso-mpirun.sbatch" \
  "SLURM_SUBMIT_DIR=$work" -- cfg.toml
want "a Command with a space in its path: the binary's body, nothing planted sourced" 0 "mpirun -n 4 $bin cfg.toml"
[ ! -e "$work/planted.log" ] && pass "the planted body did not run" || fail "the planted body ran"
rm bin/islandpso-job.sh
mkdir -p inst/bin inst/share/islandpso
cp bin/islandpso inst/bin/ && cp "$jobs/islandpso-job.sh" inst/share/islandpso/
job 0 "$work/spool/slurm_script" "IPSO_BIN=$work/inst/bin/islandpso" -- cfg.toml
want "spool copy: the body of an installation (share/islandpso)" 0 "mpirun -n 4 $work/inst/bin/islandpso cfg.toml"
job 0 "$work/spool/slurm_script" "IPSO_JOB_BODY=$jobs/islandpso-job.sh" -- cfg.toml
want "spool copy, IPSO_JOB_BODY: body found" 0 "mpirun -n 4 $bin cfg.toml"
# Bodies no other user may have written: writable by others, in a
# directory writable by others, another user's (as root only).
mkdir open && cp "$jobs/islandpso-job.sh" open/ && chmod 0666 open/islandpso-job.sh
job 0 "$work/spool/slurm_script" "IPSO_JOB_BODY=$work/open/islandpso-job.sh" -- cfg.toml
[ "$rc" -eq 2 ] && grep -q "not sourcing the job body '$work/open/islandpso-job.sh': '$work/open/islandpso-job.sh' belongs to uid [0-9]* or is writable by others (mode 666)" <<<"$out" &&
  ! grep -Eq '^(srun|mpirun)' <<<"$calls" && pass "a body writable by others: not sourced (exit 2)" ||
  fail "a body writable by others: exit $rc: $out"
chmod 0644 open/islandpso-job.sh && chmod 0777 open
job 0 "$work/spool/slurm_script" "IPSO_JOB_BODY=$work/open/islandpso-job.sh" -- cfg.toml
[ "$rc" -eq 2 ] && grep -q "'$work/open' belongs to uid [0-9]* or is writable by others (mode 777)" <<<"$out" &&
  pass "a body in a directory writable by others: not sourced (exit 2)" || fail "a body in an open directory: exit $rc: $out"
chmod 0755 open
if [ "$(id -u)" -eq 0 ]; then
  . "$IPSO_TEST_DIR/faults/user_lib.sh"
  need_other_user
  chown "$other" open/islandpso-job.sh
  job 0 "$work/spool/slurm_script" "IPSO_JOB_BODY=$work/open/islandpso-job.sh" -- cfg.toml
  [ "$rc" -eq 2 ] && grep -q "belongs to uid $(id -u "$other") or is writable by others" <<<"$out" &&
    ! grep -Eq '^(srun|mpirun)' <<<"$calls" && pass "another user's body ($other): not sourced (exit 2)" ||
    fail "another user's body: exit $rc: $out"
else
  echo "skip: another user's body (needs root to make one)"
fi
finish
