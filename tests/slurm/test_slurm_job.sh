#!/bin/bash
# The job scripts in a real (private, single-node) Slurm: srun, --gres and mpirun variants finish with the result of a plain mpirun run; a second start never clobbers an output.
#
# Asserts, for each of jobs/islandpso.sbatch, islandpso-multinode.sbatch
# (with --nodes=1: the test cluster has one node) and islandpso-mpirun.sbatch,
# 4 tasks on the CPU backend: the job is COMPLETED with ExitCode 0:0 and no
# restart, its log is <job name>-<job id>.out in the submit directory and
# shows 4 islands and the finished run, and its HDF5 /result, /history and
# /snapshots (bit for bit), /migrations rows and printed best fitness equal
# those of the same config run with mpirun outside Slurm. The GPUs each rank
# sees (the test node's 4 GPUs are stand-ins; IPSO_BIN is a wrapper that
# prints CUDA_VISIBLE_DEVICES): with --gpus-per-task=1 one each, all
# different; with --gres=gpu:4 (srun or mpirun) all four. Then the srun script submitted
# again in the same directory without --overwrite: FAILED with ExitCode 2:0
# and the output file unchanged; and with --overwrite: COMPLETED, same result.
. "$IPSO_TEST_DIR/lib/common.sh"
. "$IPSO_TEST_DIR/slurm/run_cfg.sh"
. "$IPSO_TEST_DIR/slurm/slurm_cluster.sh"
slurm_deadline 420
slurm_start
its=12000
jobs=$IPSO_SOURCE_DIR/jobs
reference "$its"

# islandpso behind a wrapper that says which GPUs its rank sees.
cat >ipso-wrap <<'EOF'
#!/bin/bash
echo "gpu-check: rank ${PMIX_RANK:-?} sees ${CUDA_VISIBLE_DEVICES:-none}"
exec "$IPSO_REAL_BIN" "$@"
EOF
chmod +x ipso-wrap
# The job body is found beside the binary, here the wrapper.
cp "$jobs/islandpso-job.sh" "$work/islandpso-job.sh"
export IPSO_REAL_BIN=$IPSO_BIN IPSO_BIN=$work/ipso-wrap

# gpus_seen ID: each rank's visible GPUs, in rank order, space separated.
gpus_seen() {
  sed -n 's/^gpu-check: rank \([0-9]*\) sees \(.*\)/\1 \2/p' "$(job_log "$1")" | sort -n | cut -d' ' -f2 | xargs
}
# check_gpus ID WHAT WANT: the ranks saw WANT.
check_gpus() {
  local got
  got=$(gpus_seen "$1")
  [ "$got" = "$3" ] && pass "$2: ranks see GPUs $got" || fail "$2: ranks see GPUs '$got', want '$3'"
}

# submit DIR SCRIPT [sbatch options] [-- islandpso options]: the job id.
submit() {
  local dir=$1 script=$2 opts=()
  shift 2
  while [ $# -gt 0 ] && [ "$1" != -- ]; do
    opts+=("$1")
    shift
  done
  [ $# -gt 0 ] && shift
  mkdir -p "$dir"
  [ -f "$dir/run.toml" ] || write_run_cfg "$dir/run.toml" "$its"
  sbatch --parsable --chdir="$work/$dir" "${opts[@]}" "$jobs/$script" run.toml "$@"
}

# check_done ID DIR WHAT: the job completed cleanly with the reference's result.
check_done() {
  local id=$1 dir=$2 what=$3 log
  log=$(job_log "$id")
  [ "$(job_summary "$id")" = "COMPLETED 0:0 restarts=0" ] && pass "$what: $(job_summary "$id")" ||
    { fail "$what: $(job_summary "$id")"; tail -30 "$log"; return; }
  [ "$log" = "$work/$dir/islandpso-$id.out" ] && [ -f "$log" ] && pass "$what: log islandpso-$id.out" ||
    fail "$what: log '$log', want $work/$dir/islandpso-$id.out"
  grep -q "256 particles x 4 islands" "$log" && grep -q "finished at iteration $its" "$log" &&
    grep -q "islandpso-job: .* islandpso finished" "$log" && pass "$what: 4 islands, finished" ||
    { fail "$what: log lacks 4 islands or the finish"; tail -30 "$log"; }
  same_run ref/run.h5 ref/log "$dir/run.h5" "$log" "$what"
}

a=$(submit srun islandpso.sbatch) || fail "sbatch islandpso.sbatch"
b=$(submit gres islandpso-multinode.sbatch --nodes=1) || fail "sbatch islandpso-multinode.sbatch"
c=$(submit mpirun islandpso-mpirun.sbatch) || fail "sbatch islandpso-mpirun.sbatch"
[ "$fails" -eq 0 ] || finish
for id in "$a" "$b" "$c"; do job_wait "$id" 150 || fail "job $id did not end"; done
check_done "$a" srun "srun job"
check_done "$b" gres "multinode (--gres) job"
check_done "$c" mpirun "mpirun job"
check_gpus "$a" "srun job, --gpus-per-task=1" "0 1 2 3"
check_gpus "$b" "multinode job, --gres=gpu:4" "0,1,2,3 0,1,2,3 0,1,2,3 0,1,2,3"
check_gpus "$c" "mpirun job, --gres=gpu:4" "0,1,2,3 0,1,2,3 0,1,2,3 0,1,2,3"

# A new job in the same directory must not replace run.h5 unless told to.
sum=$(sha256sum srun/run.h5)
d=$(submit srun islandpso.sbatch) && job_wait "$d" 60 || fail "second job did not end"
[ "$(job_summary "$d")" = "FAILED 2:0 restarts=0" ] && pass "second start without --overwrite: $(job_summary "$d")" ||
  { fail "second start without --overwrite: $(job_summary "$d"), want FAILED 2:0"; tail -20 "$(job_log "$d")"; }
[ "$(sha256sum srun/run.h5)" = "$sum" ] && pass "the first job's output is untouched" || fail "the first job's output changed"
e=$(submit srun islandpso.sbatch -- --overwrite) && job_wait "$e" 120 || fail "--overwrite job did not end"
check_done "$e" srun "job with --overwrite"
finish
