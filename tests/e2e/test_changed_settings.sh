#!/bin/bash
# A restart whose config changes an algorithm setting continues with the new
# one and says so, naming the setting, its value in the checkpoint and the
# new value: the swarm's topology (ring with its neighbours, global, or clpso
# with its refresh), the inertia and its schedule's end, the frames, and the migration
# policies (selection, replacement, probability per link). Unchanged
# settings are not mentioned.
. "$IPSO_TEST_DIR/lib/common.sh"
. "$IPSO_TEST_DIR/lib/config.sh"
cd "$work" || exit 1
ipso_config run.toml rastrigin 5 24 20 'output.checkpoint="run.ckpt.h5"' \
  'swarm.topology="ring"' swarm.neighbours=3
expect_rc 0 "a ring run with a checkpoint at its end" "$IPSO_BIN" run.toml
[ -f run.ckpt.h5 ] || fail "no checkpoint written"
# Each restart writes its own checkpoints: every case starts from this copy.
cp run.ckpt.h5 start.ckpt.h5

expect_rc 0 "restart, same settings" "$IPSO_BIN" run.toml --restart start.ckpt.h5 \
  --set run.max_iterations=25
grep -q "was written with" <<<"$out" && fail "same settings: a change reported: $(grep "was written with" <<<"$out")" ||
  pass "same settings: no change reported"

# changed CONFIG NAME PATTERN ARGS...: a restart of CONFIG with ARGS warns
# with PATTERN.
changed() {
  local cfg=$1 name=$2 pattern=$3
  shift 3
  expect_rc 0 "restart, $name" "$IPSO_BIN" "$cfg" --restart start.ckpt.h5 --set run.max_iterations=25 "$@"
  grep -qF -- "$pattern" <<<"$out" && pass "$name: says '$pattern'" || fail "$name: no '$pattern' in: $out"
}
grep -v '^neighbours' run.toml | sed 's/^topology = "ring"/topology = "global"/' >global.toml
changed global.toml "global topology" \
  "written with swarm.topology = ring, 3 neighbours on each side; continuing with global"
changed run.toml "other neighbours" "written with swarm.topology = ring, 3 neighbours on each side; continuing with ring, 5 neighbours on each side" \
  --set swarm.neighbours=5
changed run.toml "inertia" "written with inertia = " --set swarm.inertia=0.5
changed run.toml "random selection" \
  "written with migration.select = best; continuing with random" --set migration.select=random
changed run.toml "random replacement" \
  "written with policy = replace_worst; continuing with replace_random" \
  --set migration.policy=replace_random
changed run.toml "probability" \
  "written with migration.probability = 1; continuing with 0.25" --set migration.probability=0.25
grep -v '^neighbours' run.toml | sed 's/^topology = "ring"/topology = "clpso"/' >clpso.toml
changed clpso.toml "clpso topology" \
  "written with swarm.topology = ring, 3 neighbours on each side; continuing with clpso, exemplars refreshed every 7 iterations"
changed run.toml "inertia schedule" "written with inertia_end = 0.7213475204444817; continuing with 0.25" \
  --set swarm.inertia_end=0.25
# The run has eigen frames on its odd islands (the default); along the axes
# they are dropped, and a frame on every island starts from the axes where
# the checkpoint kept none.
changed run.toml "axes" "written with frame = mixed; continuing with axes" --set 'swarm.frame="axes"'
changed run.toml "eigen frames" "written with frame = mixed; continuing with eigen" \
  --set 'swarm.frame="eigen"'
finish
