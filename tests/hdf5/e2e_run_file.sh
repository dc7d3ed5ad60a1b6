#!/bin/bash
# The HDF5 file of real 4-rank CPU runs, dataset by dataset, against the run's printed results.
#
# Two runs of islandpso under mpirun -np 4, each checked by e2e_check_run.py
# (shapes, dtypes and values of /history, /snapshots, /result, /migrations
# and the root attributes; see there) and read back whole by h5dump:
#   rastrigin  6-D in bounds [-3, 4], 24 particles per island, 100 iterations,
#              a history row every 3 (so the last row, 100, is the extra final
#              one), snapshots every 30, migration every 6 (every migration
#              and snapshot iteration has a history row to check against)
#   sphere     stopped by target_fitness before max_iterations: the history
#              ends with a row at the iteration the run ended.
. "$IPSO_TEST_DIR/lib/common.sh"
check_py=$IPSO_TEST_DIR/hdf5/e2e_check_run.py
if ! "$IPSO_PYTHON" -c 'import h5py' 2>/dev/null; then
  echo "$IPSO_PYTHON has no h5py: skipped"
  exit 77
fi
version=$("$IPSO_BIN" --version | sed -n 's/^islandpso \([^ ]*\)$/\1/p')
[ -n "$version" ] || fail "islandpso --version prints no version"

# run_and_check NAME OBJECTIVE DIMS PARTICLES ITERATIONS HISTORY SNAPSHOT MIGRATION LOWER UPPER SEED [SECTION.KEY=VALUE]
run_and_check() {
  local name=$1 obj=$2 dims=$3 parts=$4 its=$5 hi=$6 si=$7 mi=$8 lo=$9 up=${10} seed=${11} extra=${12:-}
  mkdir "$name"
  ipso_config "$name/run.toml" "$obj" "$dims" "$parts" "$its" "run.name=\"$name\"" "run.seed=$seed" \
    'run.output="run.h5"' ${extra:+"$extra"} "objective.lower=$lo" "objective.upper=$up" \
    "migration.interval=$mi" migration.migrants=3 "output.history_interval=$hi" \
    "output.snapshot_interval=$si"
  (cd "$name" && "$IPSO_BIN" run.toml --dry-run) >"$name/dry.txt" 2>&1 || { fail "$name: --dry-run"; cat "$name/dry.txt"; return; }
  # The resolved config is everything --dry-run prints before its last line.
  sed '$d' "$name/dry.txt" >"$name/config.txt"
  local t0 t1
  t0=$(date +%s)
  if (cd "$name" && mpi 4 run.toml >log 2>&1); then pass "$name: 4-rank run (exit 0)"; else
    fail "$name: 4-rank run exit $?"; tail -20 "$name/log"; return; fi
  t1=$(date +%s)
  if "$IPSO_PYTHON" "$check_py" "$name/run.h5" "$name/log" "$name/config.txt" --islands 4 \
    --particles "$parts" --dims "$dims" --max-iterations "$its" --history-interval "$hi" \
    --snapshot-interval "$si" --migration-interval "$mi" --lower "$lo" --upper "$up" \
    --seed "$seed" --version "$version" --objective "$obj" --started-after "$t0" \
    --finished-before "$t1" >"$name/check.txt" 2>&1; then
    pass "$name: $(grep -c '^ok' "$name/check.txt") checks of the file against the printed result"
  else
    fail "$name: file checks"
    grep -v '^ok' "$name/check.txt"
  fi
  if command -v h5dump >/dev/null; then
    if h5dump "$name/run.h5" >"$name/dump.txt" 2>&1; then
      pass "$name: h5dump reads the whole file (exit 0)"
      grep -q 'DATASET "island_best"' "$name/dump.txt" && grep -q 'DATASET "best_fitness"' "$name/dump.txt" &&
        pass "$name: h5dump lists /history/island_best and /result/best_fitness" ||
        fail "$name: h5dump output lacks island_best or best_fitness"
    else
      fail "$name: h5dump exit $?"
      tail -5 "$name/dump.txt"
    fi
  else
    echo "note: h5dump not installed (Debian package hdf5-tools): not run"
  fi
}

run_and_check ras rastrigin 6 24 100 3 30 6 -3.0 4.0 2029
run_and_check target sphere 4 16 3000 10 0 8 -10.0 10.0 5 run.target_fitness=1e-6
grep -q "(target_fitness reached)" target/log && pass "target: stopped by target_fitness" ||
  fail "target: not stopped by target_fitness: $(grep 'finished at' target/log)"
finish
