#!/bin/bash
# Islands are global (run.islands over any number of ranks that divides it): 8 islands on 1, 2, 4 and 8 ranks give byte-identical outputs and checkpoints; a checkpoint of 4 ranks continues exactly on 2 and on 8; a restart with another island count and an island count that is not a multiple of the ranks are refused (exit 2) before anything is written.
#
# Strict runs, 8 islands of 16 particles (64 on the GPU), a bidirectional
# ring migrating every 10 iterations, history every iteration, snapshots
# every 40. Files are compared by lib/h5compare.py: every dataset and
# attribute bit for bit but the wall-clock ones (wall_seconds,
# elapsed_seconds, started, finished).
#
# Usage: test_islands.sh [cpu|gpu] [best|random] (default cpu; gpu: the GPU
# backend, every rank's islands on the one GPU, skipped (77) without one;
# random: the random migration policies, migration.select = "random" and
# migration.policy = "replace_random", with migration.probability = 0.75,
# whose draws are addressed by global island id: 1, 2 and 4 ranks, the checkpoint of 4 continued on 2 and 8,
# and the log's best sent no better than the sender's best; no refusals).
backend=${1:-cpu}
policies=${2:-best}
if [ "$backend" = gpu ]; then
  if ! "$IPSO_BIN" --version | grep -q "GPU backend: CUDA" ||
    ! { command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; }; then
    echo "no GPU backend or no GPU: skipped"; exit 77
  fi
fi
. "$IPSO_TEST_DIR/lib/common.sh"
. "$IPSO_TEST_DIR/lib/h5.sh"
"$IPSO_PYTHON" -c "import h5py" 2>/dev/null || { echo "skipped: $IPSO_PYTHON has no h5py"; exit 77; }
export IPSO_CACHE_DIR=${IPSO_CACHE_DIR:-$work/cache}
its=120
particles=16
[ "$backend" = gpu ] && particles=64
ranks=(1 2 4 8) extra=()
ckpt=40
if [ "$policies" = random ]; then
  ranks=(1 2 4) extra=('migration.select="random"' 'migration.policy="replace_random"'
    migration.probability=0.75)
fi
ipso_config run.toml rastrigin 6 "$particles" "$its" "run.backend=\"$backend\"" run.islands=8 \
  run.seed=21 'run.output="run.h5"' \
  'output.checkpoint="run.ckpt.h5"' output.checkpoint_interval=$ckpt output.history_interval=1 \
  output.snapshot_interval=40 migration.interval=10 migration.migrants=2 \
  'migration.topology="bidirectional_ring"' 'run.watchdog="00:00:30"' "${extra[@]}"
# The summary without the rate and the time, which are timings.
summary() { grep -E "best fitness|position|evaluations|finished at" "$1" | sed 's/ *([^)]* per second)//'; }
compare() { "$IPSO_PYTHON" "$IPSO_TEST_DIR/lib/h5compare.py" "$@"; }
# same WHAT A B [h5compare options]: A and B identical but for the wall-clock times.
same() {
  local what=$1; shift
  if compare "$@" >cmp.log 2>&1; then pass "$what"; else fail "$what"; head -20 cmp.log; fi
}
# run_in DIR LOG RANKS ARGS...: islandpso on RANKS ranks in DIR.
run_in() {
  local dir=$1 log=$2 n=$3; shift 3
  (cd "$dir" && mpi "$n" ../run.toml "$@" >"$log" 2>&1) || { fail "$dir: $n ranks exited $?"; tail -15 "$dir/$log"; }
}

# 1. The same run on 1, 2, 4 and 8 ranks.
for n in "${ranks[@]}"; do
  mkdir "r$n"
  run_in "r$n" log "$n"
done
grep -q "$particles particles x 8 islands (2 per rank on 4 ranks)" r4/log && pass "4 ranks: the start line says 8 islands, 2 per rank" ||
  { fail "4 ranks: start line"; head -3 r4/log; }
[ "$(grep -c "^  island [0-7] (rank [0-3]): $backend" r4/log)" = 8 ] && pass "4 ranks: every island's device printed, with its rank" ||
  { fail "4 ranks: device lines"; head -12 r4/log; }
"$IPSO_PYTHON" - r1/run.h5 "$its" "$particles" "$policies" <<'PY' && pass "1 rank: 8 islands migrated (8 x 2 records every 10 iterations; fewer with a probability), history [T, 8], snapshots [8 x $particles]" || fail "1 rank: the output lacks the 8 islands' migrations, history or snapshots"
import sys, h5py
its, n = int(sys.argv[2]), int(sys.argv[3])
with h5py.File(sys.argv[1], "r") as f:
    mig = f["/migrations"][()]
    full = its // 10 * 8 * 2
    ok = (int(f.attrs["islands"]) == 8
          and (len(mig) == full if sys.argv[4] != "random" else 0 < len(mig) < full)
          and f["/history/island_best"].shape == (its + 1, 8)
          and f["/snapshots/40/position"].shape == (8 * n, 6)
          and int(f["/result/evaluations"][()]) == 8 * n * (its + 1)
          and 0 <= int(f["/result/island"][()]) < 8)
    # Migrants cross between the rank's own islands: 0 -> 1 and 7 -> 0.
    pairs = {(int(a), int(b)) for a, b in zip(mig["from"], mig["to"])}
    ok = ok and {(0, 1), (1, 0), (7, 0), (0, 7)} <= pairs
    print(f"{len(mig)} migration records, island_best {f['/history/island_best'].shape}")
sys.exit(0 if ok else 1)
PY
if [ "$policies" = random ]; then
  "$IPSO_PYTHON" - r1/run.h5 <<'PY' && pass "random policies: the log's best sent is never better than the sender's best, and at times worse (drawn, not the best)" || fail "random policies: the migration log's best fitness"
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    mig = f["/migrations"][()]
    ib = f["/history/island_best"][()]
    best = ib[mig["iteration"], mig["from"]]
    worse = int((mig["best_fitness"] > best).sum())
    print(f"{len(mig)} records, {worse} sent worse than the sender's best")
sys.exit(0 if (mig["best_fitness"] >= best).all() and worse > 0 else 1)
PY
fi
for n in "${ranks[@]:1}"; do
  same "8 islands on $n ranks: output identical to 1 rank's (result, history, migrations, snapshots, attributes)" r1/run.h5 "r$n/run.h5"
  same "8 islands on $n ranks: final checkpoint identical to 1 rank's" r1/run.ckpt.h5 "r$n/run.ckpt.h5"
  if [ -n "$(summary r1/log)" ] && [ "$(summary r1/log)" = "$(summary "r$n/log")" ]; then
    pass "8 islands on $n ranks: printed result identical to 1 rank's"
  else
    fail "8 islands on $n ranks: printed result differs"; diff <(summary r1/log) <(summary "r$n/log")
  fi
done

# 2. A checkpoint of 4 ranks continues exactly on 2 and on 8 ranks.
mkdir cut
run_in cut log1 4 --set run.max_iterations=50
for n in 2 8; do
  cp -r cut "cut$n"
  run_in "cut$n" log2 "$n" --restart run.ckpt.h5
  grep -q "restart from *run.ckpt.h5" "cut$n/log2" && grep -q "finished at iteration $its" "cut$n/log2" ||
    { fail "cut$n: no restart or no finish in the log"; tail -5 "cut$n/log2"; }
  same "checkpoint of 4 ranks continued on $n: output identical to the uninterrupted run's" r4/run.h5 "cut$n/run.h5"
  same "checkpoint of 4 ranks continued on $n: final checkpoint identical to the uninterrupted run's" \
    r4/run.ckpt.h5 "cut$n/run.ckpt.h5"
done
# The periodic checkpoint of iteration 40, kept as .prev, continues
# exactly too.
mkdir cutp && cp cut/run.h5 cut/run.ckpt.h5.prev cutp/
iteration=$(cd cutp && h5get run.ckpt.h5.prev @iteration 2>&1)
[ "$iteration" = "$ckpt" ] && pass "the checkpoint kept as .prev is the periodic one of iteration $ckpt" ||
  fail "the checkpoint kept as .prev is of iteration '$iteration', not $ckpt"
run_in cutp log2 4 --restart run.ckpt.h5.prev
same "the periodic checkpoint of iteration $ckpt continued: output identical to the uninterrupted run's" \
  r4/run.h5 cutp/run.h5
same "the periodic checkpoint of iteration $ckpt continued: final checkpoint identical to the uninterrupted run's" \
  r4/run.ckpt.h5 cutp/run.ckpt.h5
[ "$policies" = best ] || finish

# 3. Refusals, before anything is written: a restart with another island
# count, and islands that are not a multiple of the ranks.
mkdir other && cp cut/run.h5 cut/run.ckpt.h5 other/
sums() { (cd "$1" && md5sum ./* | sort); }
before=$(sums other)
expect_rc 2 "restart of 8 islands with run.islands = 4 refused" \
  bash -c 'cd other && "$MPIEXEC" "$MPIEXEC_NUMPROC_FLAG" 2 "$IPSO_BIN" ../run.toml --set run.islands=4 --restart run.ckpt.h5'
grep -q "checkpoint 'run.ckpt.h5': written by 8 islands, the run has 4" <<<"$out" && pass "the refusal names both island counts" ||
  { fail "the refusal does not name the island counts"; echo "$out" | tail -5; }
[ "$before" = "$(sums other)" ] && pass "the refused restart left the output and checkpoint as they were" ||
  fail "the refused restart changed the files"
mkdir odd
expect_rc 2 "3 islands on 2 ranks refused" \
  bash -c 'cd odd && "$MPIEXEC" "$MPIEXEC_NUMPROC_FLAG" 2 "$IPSO_BIN" ../run.toml --set run.islands=3'
grep -q "run.islands: 3 islands cannot be spread evenly over 2 MPI ranks" <<<"$out" &&
  pass "the refusal says why" || { fail "no reason for the refusal"; echo "$out" | tail -5; }
[ -z "$(ls -A odd)" ] && pass "nothing written for the refused island count" || fail "files written: $(ls -A odd)"
finish
