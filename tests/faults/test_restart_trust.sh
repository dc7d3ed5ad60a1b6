#!/bin/bash
# A restart trusts nothing that another hand can change, on 4 ranks. Every
# refusal checks the exit code (2), the message and the sha256 of every
# file of the run directory (its output, checkpoints and config).
#  - A checkpoint whose iteration, evaluations, run time, history rows,
#    target iteration or migration rows were edited (h5py), or without the
#    checksum over them ('format' deleted: a checkpoint of before).
#  - A state edited with its island's checksum written to match: a position
#    outside the bounds, a velocity beyond the clamp, a NaN cost, a personal
#    best worse than its current cost.
#  - An output older than the checkpoint (a copy from halfway): refused
#    with --restart and with --resume, where it would have left a gap of
#    100 history rows; the newer output continued from the checkpoint kept
#    as .prev (rows after it rewritten) ends as the run did.
#  - A restart with another history_interval keeps the row at the
#    checkpoint's iteration, which nothing writes again.
. "$IPSO_TEST_DIR/lib/common.sh"
. "$IPSO_TEST_DIR/faults/lib.sh"
. "$IPSO_TEST_DIR/faults/user_lib.sh"
need_h5py
damage() { "$IPSO_PYTHON" "$IPSO_TEST_DIR/faults/ckpt_damage.py" "$@" >/dev/null; }
attr() { h5get "$1" "/@$2"; }
R=$work/run
mkdir -p "$R"
cd "$R" || exit 1
ipso_config run.toml rastrigin 5 16 200 run.seed=3 migration.interval=20 'run.output="run.h5"' \
  'output.checkpoint="run.ckpt.h5"' output.checkpoint_interval=100 output.history_interval=1
expect_rc 0 "first leg: 100 iterations" mpi 4 run.toml --set run.max_iterations=100
cp run.h5 "$work/old.h5"
expect_rc 0 "second leg: continued to 200" mpi 4 run.toml --restart run.ckpt.h5
[ "$(attr run.ckpt.h5 iteration)" = 200 ] && [ "$(attr run.ckpt.h5.prev iteration)" = 100 ] ||
  fail "setup: checkpoints at $(attr run.ckpt.h5 iteration) and $(attr run.ckpt.h5.prev iteration)"

# edited WHAT PATTERN DAMAGE...: a copy of the checkpoint damaged so
# (ckpt_damage.py) is refused by a restart that would go on to 300.
edited() {
  local what=$1 pattern=$2
  shift 2
  damage "$1" run.ckpt.h5 edit.h5 "${@:2}" || fail "$what: damaging the copy"
  refused_in "$R" "$what" "checkpoint 'edit.h5': $pattern" \
    mpi 4 run.toml --restart edit.h5 --set run.max_iterations=300
  rm -f edit.h5
}
sum_changed="its iteration \(200\), counts or identity do not match the checksum over them \(altered since it was written\)"
edited "iteration edited" "${sum_changed/200/150}" attr iteration 150
edited "evaluations edited" "$sum_changed" attr evaluations 1000
edited "run time edited" "$sum_changed" attr-float elapsed_seconds 0.5
edited "history rows edited" "$sum_changed" attr history_rows 150
edited "target iteration edited" "$sum_changed" attr target_iteration 50
edited "migration rows edited" "$sum_changed" attr migration_rows 12
edited "no checksum over the counts (format 1)" \
  "written by an earlier islandpso \(checkpoint format 1\), whose iteration and counts no checksum covers" \
  del-attr format
edited "a position outside the bounds" \
  "island 0 particle 5 dimension 2: position 99 outside the bounds \[-5.12, 5.12\]" \
  edit position 5 2 99
# The default clamps: 5% of the range on even islands, all of it on odd ones.
edited "a velocity beyond the clamp" "island 0 particle 4 dimension 0: velocity 5 beyond the clamp 0.512" \
  edit velocity 4 0 5
edited "a velocity beyond an odd island's clamp" \
  "island 1 particle 4 dimension 0: velocity 11 beyond the clamp 10.24" edit velocity 20 0 11
edited "a NaN cost" "island 2 particle 1: a cost is NaN" edit cost 33 0 nan
edited "a personal best worse than its cost" \
  "island 3 particle 2: personal best cost [-0-9.e+]+ worse than its current cost" \
  edit pbest_cost 50 0 +1e6

# An output older than the checkpoint.
mv run.h5 "$work/new.h5"
cp "$work/old.h5" run.h5
gap="the output 'run.h5' holds 101 history rows up to the checkpoint's iteration 200 \(the last at iteration 100\), the checkpoint counts 201: the output is older than the checkpoint"
refused_in "$R" "an older output, --restart" "checkpoint 'run.ckpt.h5': $gap" \
  mpi 4 run.toml --restart run.ckpt.h5 --set run.max_iterations=300
refused_in "$R" "an older output, --resume" "checkpoint 'run.ckpt.h5': $gap" \
  mpi 4 run.toml --resume --set run.max_iterations=300
# The newer output from the checkpoint kept before: its rows after 100 are
# written again, to what they were.
cp "$work/new.h5" run.h5
expect_rc 0 "the newer output continued from the checkpoint kept as .prev" \
  mpi 4 run.toml --restart run.ckpt.h5.prev
same_h5 "$work/new.h5" run.h5 "and it ends as the run did (every row, migration and the result)"

# Another history_interval on a restart: the checkpoint's row stays.
mkdir "$work/hi" && cd "$work/hi" || exit 1
ipso_config run.toml rastrigin 5 16 120 run.seed=3 migration.interval=20 'run.output="run.h5"' \
  'output.checkpoint="run.ckpt.h5"' output.checkpoint_interval=60 output.history_interval=10
expect_rc 0 "history_interval 10: 60 iterations" mpi 4 run.toml --set run.max_iterations=60
row60() { "$IPSO_PYTHON" -c 'import h5py, numpy as np; f = h5py.File("run.h5", "r"); i = list(f["history/iteration"][:]).index(60); print(f["history/global_best"][i], list(f["history/island_best"][i]))'; }
before=$(row60)
expect_rc 0 "continued to 120 with history_interval 7" mpi 4 run.toml --restart run.ckpt.h5 \
  --set output.history_interval=7
its=$("$IPSO_PYTHON" -c 'import h5py; print(" ".join(str(i) for i in h5py.File("run.h5", "r")["history/iteration"][:]))')
want="0 10 20 30 40 50 60 63 70 77 84 91 98 105 112 119 120"
[ "$its" = "$want" ] && pass "history rows: $its" || fail "history rows: '$its', want '$want'"
[ "$(row60)" = "$before" ] && pass "the row at iteration 60 kept as it was" || fail "row 60: '$(row60)', was '$before'"
[ "$(attr run.ckpt.h5 history_rows)" = 17 ] && pass "the final checkpoint counts the 17 rows" ||
  fail "final checkpoint's history_rows $(attr run.ckpt.h5 history_rows), want 17"
finish
