#!/bin/bash
# A truncated, bit-flipped or altered checkpoint is refused by
# "islandpso CONFIG --restart CKPT" with exit 2 and the reason, on 4 ranks,
# before any file is written; an intact copy restarts to the uninterrupted
# result; a flip anywhere in the file is either refused or (where it hits
# bytes nothing reads) gives that very result, never anything else.
. "$IPSO_TEST_DIR/lib/common.sh"
. "$IPSO_TEST_DIR/faults/lib.sh"
need_h5py
damage() { "$IPSO_PYTHON" "$IPSO_TEST_DIR/faults/ckpt_damage.py" "$@"; }
flips=${IPSO_FLIP_TRIALS:-12}

ipso_config "$work/ck.toml" rastrigin 5 16 400 run.seed=3 migration.interval=20 \
  output.checkpoint_interval=200 'output.checkpoint="made.ckpt.h5"'

# The uninterrupted run, and a checkpoint at iteration 200 (the end of a
# 200-iteration run) from which the 400-iteration run continues.
mkdir "$work/ref" "$work/make"
start_job "$work/ref" 4 "$work/ck.toml" --set 'output.checkpoint=""'
wait_job 60
[ "$job_rc" -eq 0 ] || { fail "reference run: exit $job_rc"; finish; }
start_job "$work/make" 4 "$work/ck.toml" --set run.max_iterations=200
wait_job 60
good=$work/make/made.ckpt.h5
[ "$job_rc" -eq 0 ] && [ -f "$good" ] || { fail "making the checkpoint: exit $job_rc"; finish; }
size=$(stat -c %s "$good")

# restart NAME: restarts from $work/NAME.h5 in an empty directory; exit
# status in $job_rc, output in $log; the directory must stay empty.
restart() {
  local dir=$work/r_$1
  mkdir "$dir"
  start_job "$dir" 4 "$work/ck.toml" --restart "$work/$1.h5" --set "output.checkpoint=\"$1.out.h5\""
  wait_job 60
  log=$dir/log
  created=$(ls -A "$dir" | grep -vx log)
}

# refused NAME REASON: the restart from NAME exits 2, once, with REASON,
# and writes nothing.
refused() {
  local name=$1 reason=$2 n
  restart "$name"
  n=$(grep -cF "checkpoint '$work/$name.h5': $reason" "$log")
  if [ "$job_rc" -eq 2 ] && [ "$n" -eq 1 ] && [ -z "$created" ] && ! grep -q "error: \[rank" "$log"; then
    pass "$name: refused (exit 2): $reason"
  else
    fail "$name: exit $job_rc, reason printed $n times (want 2, once), files: ${created:-none}"
    grep -E "error|warning" "$log" | head -n 4
  fi
}

cp "$good" "$work/intact.h5"
restart intact
if [ "$job_rc" -eq 0 ] && [ "$(summary "$log")" = "$(summary "$work/ref/log")" ]; then
  pass "intact copy restarts to the uninterrupted result"
else
  fail "intact copy: exit $job_rc or a different result"
  summary "$log"
fi

damage truncate "$good" "$work/cut_half.h5" $((size / 2)) >/dev/null
refused cut_half "truncated: $((size / 2)) bytes of $size"
damage truncate "$good" "$work/cut_one.h5" -1 >/dev/null
refused cut_one "truncated: $((size - 1)) bytes of $size"
damage truncate "$good" "$work/cut_superblock.h5" 96 >/dev/null
refused cut_superblock "truncated: 96 bytes of $size"
damage truncate "$good" "$work/cut_empty.h5" 0 >/dev/null
refused cut_empty "not an HDF5 file"

# One low mantissa bit of one element: a value off in its 16th digit.
damage flip "$good" "$work/flip_position.h5" position 20 0 >/dev/null
refused flip_position "checksum of island 1 does not match"
damage flip "$good" "$work/flip_velocity.h5" velocity 63 3 >/dev/null
refused flip_velocity "checksum of island 3 does not match"
damage flip "$good" "$work/flip_pbest_position.h5" pbest_position 0 1 >/dev/null
refused flip_pbest_position "checksum of island 0 does not match"
damage flip "$good" "$work/flip_cost.h5" cost 40 0 >/dev/null
refused flip_cost "checksum of island 2 does not match"
damage flip "$good" "$work/flip_pbest_cost.h5" pbest_cost 55 62 >/dev/null
refused flip_pbest_cost "checksum of island 3 does not match"
damage flip "$good" "$work/flip_checksum.h5" checksum 2 17 >/dev/null
refused flip_checksum "checksum of island 2 does not match"
damage flip "$good" "$work/flip_lower.h5" lower 4 51 >/dev/null
refused flip_lower "lower[4] is"

damage attr "$good" "$work/attr_dimensions.h5" dimensions 6 >/dev/null
refused attr_dimensions "written for 6 dimensions, the config has 5"
damage attr "$good" "$work/attr_islands.h5" islands 3 >/dev/null
refused attr_islands "written by 3 islands, the run has 4"
damage attr "$good" "$work/attr_particles.h5" particles 17 >/dev/null
refused attr_particles "written for 17 particles per island, the config has 16"

# Flips anywhere (HDF5 metadata included), with fixed seeds.
for seed in $(seq 1 "$flips"); do
  what=$(damage flip-random "$good" "$work/random_$seed.h5" "$seed")
  restart "random_$seed"
  if [ "$job_rc" -eq 2 ] && grep -qF "checkpoint '$work/random_$seed.h5': " "$log" && [ -z "$created" ]; then
    pass "random flip $seed ($what): refused: $(sed -n "s|.*random_$seed.h5': ||p" "$log" | head -n 1)"
  elif [ "$job_rc" -eq 0 ] && [ "$(summary "$log")" = "$(summary "$work/ref/log")" ]; then
    pass "random flip $seed ($what): bytes nothing reads; same result"
  else
    fail "random flip $seed ($what): exit $job_rc"
    grep -E "error|best fitness" "$log" | head -n 3
  fi
done
finish
