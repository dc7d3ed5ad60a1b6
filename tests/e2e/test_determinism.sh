#!/bin/bash
# Same config and seed, same bytes: repeated runs, 1 or 2 OpenMP threads (the
# global, the ring and the clpso topology), and 4 ranks twice give identical results (/result, and every HDF5 dataset but
# the wall-clock times).
. "$IPSO_TEST_DIR/lib/common.sh"
# Each run in its own directory, writing the same relative output name, so
# even the config stored in the file is the same.
ipso_config one.toml rastrigin 20 300 200 'run.output="run.h5"' output.history_interval=1 \
  output.snapshot_interval=100
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
same_result r1/run.h5 r2/run.h5 "1 thread vs 2 threads"
same_result r2/run.h5 r3/run.h5 "repeated run"

# The ring topology, on a swarm big enough for the parallel loops (particles
# x dimensions >= 16384), with 1 and 2 threads.
ipso_config ring.toml rastrigin 20 1000 60 'run.output="run.h5"' output.history_interval=1 \
  'swarm.topology="ring"' swarm.neighbours=2
for threads in 1 2; do
  mkdir "ring$threads" && (cd "ring$threads" && OMP_NUM_THREADS=$threads "$IPSO_BIN" ../ring.toml >log 2>&1) ||
    fail "ring run with $threads threads"
done
compare ring1/run.h5 ring2/run.h5 "ring, 1 thread vs 2 threads: HDF5 identical"
same_result ring1/run.h5 ring2/run.h5 "ring, 1 thread vs 2 threads"

# The clpso topology (exemplars, inertia schedule), as the ring.
ipso_config clpso.toml rastrigin 20 1000 60 'run.output="run.h5"' output.history_interval=1 \
  'swarm.topology="clpso"' swarm.refresh=4
for threads in 1 2; do
  mkdir "clpso$threads" && (cd "clpso$threads" && OMP_NUM_THREADS=$threads "$IPSO_BIN" ../clpso.toml >log 2>&1) ||
    fail "clpso run with $threads threads"
done
compare clpso1/run.h5 clpso2/run.h5 "clpso, 1 thread vs 2 threads: HDF5 identical"
same_result clpso1/run.h5 clpso2/run.h5 "clpso, 1 thread vs 2 threads"

ipso_config four.toml sphere 10 64 300 'run.output="run.h5"' output.history_interval=1 \
  output.snapshot_interval=150 migration.interval=20 migration.migrants=4
for r in a b; do
  mkdir "$r" && (cd "$r" && mpi 4 ../four.toml >log 2>&1) || fail "4 ranks, run $r"
done
compare a/run.h5 b/run.h5 "4 ranks twice: HDF5 identical"
same_result a/run.h5 b/run.h5 "4 ranks twice"
finish
