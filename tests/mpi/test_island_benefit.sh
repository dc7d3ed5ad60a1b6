#!/bin/bash
# The island model helps: 4 migrating islands beat 4 isolated ones on the median final error over 11 seeds, at the same evaluations, on 30-D rastrigin and rosenbrock (bench/island_benefit.sh, smaller: 2,000 iterations, one migration interval).
#
# The settings are the study's (32 particles per island, ring, 2 migrants)
# with migration every 10 iterations, the interval at which the study's full
# runs (5,000 iterations) showed the benefit on two disjoint sets of 11 seeds.
. "$IPSO_TEST_DIR/lib/common.sh"
SEEDS=11 ITERATIONS=2000 INTERVALS=10 \
  bash "$IPSO_SOURCE_DIR/bench/island_benefit.sh" "$(dirname "$IPSO_BIN")" >table.txt 2>&1
rc=$?
cat table.txt
[ "$rc" -eq 0 ] && pass "study ran: 44 runs finished, evaluations equal in both modes" ||
  fail "bench/island_benefit.sh exited $rc"
for obj in rastrigin rosenbrock; do
  # Row: objective interval seeds median_migrating median_isolated wins evaluations
  row=$(awk -v o="$obj" '$1 == o && $2 == 10' table.txt)
  read -r _ _ n mig iso wins _ <<<"$row"
  if [ -z "$row" ]; then
    fail "$obj: no result row"
  elif [ "$n" != 11 ]; then
    fail "$obj: $n paired seeds, want 11"
  elif awk -v a="$mig" -v b="$iso" 'BEGIN { exit !(a < b) }'; then
    pass "$obj: median final error migrating $mig < isolated $iso (wins $wins)"
  else
    fail "$obj: median final error migrating $mig, not below isolated $iso (wins $wins)"
  fi
done
finish
