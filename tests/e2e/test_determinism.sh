#!/bin/bash
# Same config and seed, same bytes: repeated runs, 1 or 2 OpenMP threads, and
# 4 ranks twice give identical results (summary and every HDF5 dataset but
# the wall-clock times).
. "$IPSO_TEST_DIR/lib/common.sh"
. "$IPSO_TEST_DIR/e2e/cfg.sh"
summary() { grep -E "best fitness|position|finished at" "$1"; }
# Each run in its own directory, writing the same relative output name, so
# even the config stored in the file is the same.
write_cfg one.toml rastrigin 20 300 200 "history_interval = 1" "snapshot_interval = 100"
sed -i 's/^output = ""/output = "run.h5"/' one.toml
run=0
for threads in 1 2 2; do
  run=$((run + 1))
  mkdir "r$run" && (cd "r$run" && OMP_NUM_THREADS=$threads "$IPSO_BIN" ../one.toml >log 2>&1) ||
    fail "run with $threads threads"
done
set -- r1/run.h5 r2/run.h5 r3/run.h5
compare() {
  if "$IPSO_PYTHON" "$IPSO_TEST_DIR/lib/h5compare.py" "$1" "$2" >cmp.log; then pass "$3"; else fail "$3"; cat cmp.log; fi
}
compare "$1" "$2" "1 thread vs 2 threads: HDF5 identical"
compare "$2" "$3" "repeated run: HDF5 identical"
set -- r1/log r2/log r3/log
if [ "$(summary "$1")" = "$(summary "$2")" ] && [ "$(summary "$2")" = "$(summary "$3")" ]; then
  pass "summaries identical"; else fail "summaries differ"; summary "$1"; summary "$2"; fi

write_cfg four.toml sphere 10 64 300 "history_interval = 1" "snapshot_interval = 150" \
  "[migration]" "interval = 20" "migrants = 4"
sed -i 's/^output = ""/output = "run.h5"/' four.toml
for r in a b; do
  mkdir "$r" && (cd "$r" && mpi 4 ../four.toml >log 2>&1) || fail "4 ranks, run $r"
done
compare a/run.h5 b/run.h5 "4 ranks twice: HDF5 identical"
if [ "$(summary a/log)" = "$(summary b/log)" ]; then pass "4 ranks twice: summaries identical"; else fail "4-rank summaries differ"; fi
finish
