#!/bin/bash
# Strict runs are reproducible across ranks: a migrating 4-rank run made twice (separate directories, same output name; shared memory, then TCP) gives byte-identical HDF5 files and summaries; another seed does not.
. "$IPSO_TEST_DIR/lib/common.sh"
"$IPSO_PYTHON" -c "import h5py" 2>/dev/null || { echo "skipped: $IPSO_PYTHON has no h5py"; exit 77; }
# The summary without the rate, which is a timing.
summary() { grep -E "best fitness|position|evaluations|finished at" "$1" | sed 's/ *([^)]* per second)//'; }
ipso_config run.toml rastrigin 12 40 300 'run.output="run.h5"' output.history_interval=1 \
  output.snapshot_interval=50 migration.interval=15 migration.migrants=4 \
  'migration.topology="bidirectional_ring"'
# Run b moves its messages over TCP instead of shared memory (Open MPI; other
# MPIs ignore the variable): other timing, same results.
for r in a b c; do
  seed=11
  [ "$r" = c ] && seed=12
  mkdir "$r" && (cd "$r" && if [ "$r" = b ]; then export OMPI_MCA_pml=ob1 OMPI_MCA_btl=tcp,self; fi &&
    mpi 4 ../run.toml --set "run.seed=$seed" >log 2>&1) || fail "4 ranks, run $r (seed $seed): exit $?"
done
compare() { "$IPSO_PYTHON" "$IPSO_TEST_DIR/lib/h5compare.py" "$1" "$2" >"cmp-$3.log" 2>&1; }
"$IPSO_PYTHON" - a/run.h5 <<'PY' && pass "the run migrated and wrote history and snapshots" || fail "run a/run.h5 lacks migrations, history or snapshots"
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    n, rows, snaps = len(f["/migrations"]), len(f["/history/iteration"]), len(f["/snapshots"])
    print(f"a/run.h5: {n} migration records, {rows} history rows, {snaps} snapshots")
    sys.exit(0 if n == 20 * 4 * 2 and rows == 301 and snaps == 7 else 1)
PY
if compare a/run.h5 b/run.h5 ab; then pass "same seed twice: HDF5 files identical"; else fail "same seed twice: HDF5 files differ"; cat cmp-ab.log; fi
if [ -n "$(summary a/log)" ] && [ "$(summary a/log)" = "$(summary b/log)" ]; then
  pass "same seed twice: summaries identical"
else
  fail "same seed twice: summaries differ"; summary a/log; summary b/log
fi
# The comparison can tell runs apart: another seed differs in the results.
compare a/run.h5 c/run.h5 ac
if [ $? -eq 1 ] && grep -q "^result/best_fitness: values differ" cmp-ac.log; then
  pass "another seed: files differ ($(tail -1 cmp-ac.log))"
else
  fail "another seed: h5compare did not report differing results"; cat cmp-ac.log
fi
finish
