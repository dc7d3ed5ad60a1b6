#!/bin/bash
# --timings: the start-up's phases (the migration ring connected among them
# with several ranks), where the iterations' time went on rank 0's host
# (one line per phase; at least as many slices as the run had segments, as
# many migrations as the interval gives; the phases within the run's time)
# and the end's phases. 2 ranks x 4 islands on the CPU backend, 100 iterations,
# migration every 10.
. "$IPSO_TEST_DIR/lib/common.sh"
ipso_config t.toml sphere 4 16 100 run.islands=4 migration.interval=10 'run.watchdog="00:01:00"'
expect_rc 0 "--timings on 2 ranks" mpi 2 t.toml --timings
for phase in "MPI_Init" "migration ring connected" "swarm initialised" "slices" \
  "history rows, reduction over ranks" "migrations" "result, checks, output" "MPI_Finalize"; do
  grep -qF "  $phase " <<<"$out" && pass "--timings names '$phase'" || fail "--timings lacks '$phase'"
done
head=$(grep "the iterations (rank 0;" <<<"$out")
[[ $head =~ \(rank\ 0\;\ ([0-9]+)\ slices,\ 10\ migrations\) ]] && pass "10 migrations in 100 iterations ($head)" ||
  fail "the iterations' line: '$head'"
# Slices end at least at every migration.
[ "${BASH_REMATCH[1]:-0}" -ge 10 ] && pass "at least 10 slices" || fail "fewer than 10 slices"
# The phases add up to no more than the run's time (the summary's `time`).
sum=$(awk '/^  (slices |history rows,|migrations |result, checks)/ {s += $(NF-4)} END {print s}' <<<"$out")
run=$(awk '/^  time +[0-9.]+ s/ {print $2}' <<<"$out")
awk -v s="$sum" -v r="$run" 'BEGIN {exit !(s > 0 && s <= r + 1e-3)}' &&
  pass "the phases' $sum s within the run's $run s" || fail "the phases' $sum s against the run's $run s"
finish
