#!/bin/bash
# The swarm invariants hold after every iteration (islandpso --check-invariants:
# positions and velocities in bounds, every personal best the objective at its
# position and never worse than before, costs the objective at the position,
# the global best the best personal best): every objective, both precisions,
# and three migrating islands.
. "$IPSO_TEST_DIR/lib/common.sh"
for spec in sphere:8 rastrigin:30 rosenbrock:10 griewank:12 ackley:30 schwefel:6 cubic:1 \
            target_distance:5; do
  IFS=: read -r obj dims <<<"$spec"
  for prec in double float; do
    PREC=$prec ipso_config "$obj-$prec.toml" "$obj" "$dims" 37 40
    expect_rc 0 "$obj $dims-D $prec" "$IPSO_BIN" "$obj-$prec.toml" --check-invariants
  done
done
ipso_config islands.toml rastrigin 10 20 60 migration.interval=5 migration.migrants=3 \
  'migration.topology="bidirectional_ring"'
expect_rc 0 "3 islands migrating every 5 iterations" mpi 3 islands.toml --check-invariants
finish
