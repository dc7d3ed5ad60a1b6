#!/bin/bash
# The solver's loop as the GPU drives it, on the CPU backend in two halves
# (IPSO_CPU_HALVES=1): the next slice with its migration begun before the
# last one's history is read, the migrants in right behind the messages out
# on one rank, a migration's log records kept until it has run. The files
# equal those of the plain loop, dataset for dataset: on 1 and 2 ranks,
# with the best and the random policies and with migration.lead = 4 (the
# messages out 4 iterations early: on 2 ranks exchanged while the next
# slice computes, its migrants in enqueued behind it), across the history's flush at
# 4,096 rows (no periodic checkpoint flushes before: a migration's records
# are then buffered ahead), and a checkpoint of the halves continued
# exactly; --timings counts the slices begun ahead. With slices of at most
# 3, 5 and 7 iterations (IPSO_SLICE_MAX), some end at a lead's iteration
# (where the GPU's loop sends the messages inside a slice, not at a
# segment's end): the same files, on 1 and 2 ranks.
. "$IPSO_TEST_DIR/lib/common.sh"
"$IPSO_PYTHON" -c "import h5py" 2>/dev/null || { echo "skipped: $IPSO_PYTHON has no h5py"; exit 77; }
its=4200
for policies in best random lead; do
  extra=()
  [ "$policies" = random ] && extra=('migration.select="random"' 'migration.policy="replace_random"'
    migration.probability=0.75)
  [ "$policies" = lead ] && extra=(migration.lead=4)
  ipso_config "$policies.toml" rastrigin 6 16 "$its" run.islands=8 run.seed=21 \
    "run.output=\"$policies.h5\"" "output.checkpoint=\"$policies.ckpt.h5\"" \
    output.checkpoint_interval=0 output.history_interval=1 output.snapshot_interval=700 \
    migration.interval=10 migration.migrants=2 'migration.topology="bidirectional_ring"' \
    'run.watchdog="00:01:00"' "${extra[@]}"
done
compare() { "$IPSO_PYTHON" "$IPSO_TEST_DIR/lib/h5compare.py" "$@"; }
same() {
  local what=$1; shift
  if compare "$@" >cmp.log 2>&1; then pass "$what"; else fail "$what"; head -20 cmp.log; fi
}
# run_in DIR LOG RANKS HALVES CONFIG ARGS...
run_in() {
  local dir=$1 log=$2 n=$3 halves=$4 cfg=$5; shift 5
  mkdir -p "$dir"
  (cd "$dir" && IPSO_CPU_HALVES=$halves mpi "$n" "../$cfg" "$@" >"$log" 2>&1) ||
    { fail "$dir: $n ranks exited $?"; tail -15 "$dir/$log"; }
}
for policies in best random lead; do
  cfg=$policies.toml
  run_in "plain-$policies" log 1 0 "$cfg"
  run_in "ahead-$policies" log 1 1 "$cfg" --timings
  head=$(grep "the iterations (rank 0;" "ahead-$policies/log")
  [[ $head =~ ([0-9]+)\ of\ them\ begun\ ahead ]] && [ "${BASH_REMATCH[1]}" -ge 400 ] &&
    pass "$policies: the halves begin slices ahead ($head)" || fail "$policies: slices begun ahead: '$head'"
  same "$policies: slices begun ahead, 1 rank: output identical to the plain loop's" \
    "plain-$policies/$policies.h5" "ahead-$policies/$policies.h5"
  same "$policies: slices begun ahead, 1 rank: final checkpoint identical" \
    "plain-$policies/$policies.ckpt.h5" "ahead-$policies/$policies.ckpt.h5"
  run_in "two-$policies" log 2 1 "$cfg" --timings
  if [ "$policies" = lead ]; then
    # Through MPI the slices after a migration's messages out are begun
    # ahead too (without a lead, the migrants in wait for the exchange).
    head=$(grep "the iterations (rank 0;" "two-$policies/log")
    [[ $head =~ ([0-9]+)\ slices,\ ([0-9]+)\ of\ them\ begun\ ahead ]] &&
      [ "${BASH_REMATCH[2]}" -ge $((BASH_REMATCH[1] - 10)) ] &&
      pass "lead: on 2 ranks every slice is begun ahead but those after a snapshot and at the end ($head)" ||
      fail "lead: 2 ranks, slices begun ahead: '$head'"
  fi
  same "$policies: halves on 2 ranks (migrations through MPI): output identical to the plain loop's" \
    "plain-$policies/$policies.h5" "two-$policies/$policies.h5"
done
# Slices that end where a lead's messages go out (lead 4, every 10: after
# iterations 6, 16, ...; slices of at most 3 run 1, 2, 3-5, 6-8, 9-10,
# 11-13, 14-16), on 1 and 2 ranks. Before the slice sent them, that
# migration was skipped.
for cap in 3 5 7; do
  for n in 1 2; do
    IPSO_SLICE_MAX=$cap run_in "cap$cap-$n" log "$n" 1 lead.toml --set run.max_iterations=400
  done
done
run_in plain-lead-400 log 1 0 lead.toml --set run.max_iterations=400
for cap in 3 5 7; do
  for n in 1 2; do
    same "lead: slices of at most $cap on $n rank(s), some ending at a lead's iteration: output identical to the plain loop's" \
      plain-lead-400/lead.h5 "cap$cap-$n/lead.h5"
  done
done
# A checkpoint written by the halves (iteration 2,000) continued by them.
run_in cut log1 1 1 best.toml --set run.max_iterations=2000
run_in cut log2 1 1 best.toml --restart best.ckpt.h5
same "a checkpoint of the halves continued: output identical to the uninterrupted run's" \
  plain-best/best.h5 cut/best.h5
same "a checkpoint of the halves continued: final checkpoint identical" \
  plain-best/best.ckpt.h5 cut/best.ckpt.h5
finish
