#!/bin/bash
# Config and usage errors under mpirun -np 4 are found once, on rank 0: each message printed exactly once, exit 2, and no output file, checkpoint or run started.
. "$IPSO_TEST_DIR/lib/common.sh"

# once NAME PATTERN: the last run's output ($out) has PATTERN exactly once.
once() {
  local hits
  hits=$(grep -c -- "$2" <<<"$out")
  if [ "$hits" -eq 1 ]; then pass "$1: printed once: $(grep -m1 -- "$2" <<<"$out")"; else
    fail "$1: '$2' printed $hits times, want once"; echo "$out" | head -20; fi
}

# bad NAME CONFIG WANT-ERRORS PATTERN [ARGS...]: runs CONFIG on 4 ranks and
# checks exit 2, WANT-ERRORS lines with "error:", PATTERN among them once.
bad() {
  local name=$1 cfg=$2 want=$3 pattern=$4; shift 4
  expect_rc 2 "$name" mpi 4 "$cfg" "$@"
  local errors
  errors=$(grep -c "error:" <<<"$out")
  [ "$errors" -eq "$want" ] || fail "$name: $errors lines with 'error:', want $want"
  once "$name" "$pattern"
  grep -q "^islandpso [0-9.]*: " <<<"$out" && fail "$name: the run started"
  local f
  for f in run.h5 run.ckpt.h5; do [ ! -e "$f" ] || fail "$name: $f was created"; done
}

ipso_config good.toml rastrigin 10 24 50 'run.output="run.h5"' output.checkpoint_interval=10 \
  'output.checkpoint="run.ckpt.h5"' migration.interval=5 migration.migrants=3 \
  'migration.topology="bidirectional_ring"'
expect_rc 0 "the config without the mistakes runs" mpi 4 good.toml --dry-run
rm -f run.h5 run.ckpt.h5

sed 's/^particles = /partcles = /' good.toml >typo.toml
bad "misspelt key" typo.toml 1 "typo.toml:[0-9]*:[0-9]*: error: .*did you mean 'particles'"

sed 's/^particles = 24/particles = 24\ninertia = 1.5/; s/^migrants = 3/migrants = 0/' good.toml >two.toml
bad "two errors in one file" two.toml 2 "two.toml:[0-9]*:[0-9]*: error: swarm.inertia"
once "two errors in one file" "two.toml:[0-9]*:[0-9]*: error: migration.migrants"

# 7 migrants from each of 2 neighbours would replace 14 of 24 particles: too
# many for 4 islands, a check that needs the number of ranks.
bad "migrants for the ring of 4 ranks" good.toml 1 "error: migration.migrants: 7 migrants" \
  --set migration.migrants=7
expect_rc 0 "the same on 1 rank (no migration)" "$IPSO_BIN" good.toml --set migration.migrants=7 --dry-run

bad "bad --set value" good.toml 1 "^--set swarm.inertia=3: error:" --set swarm.inertia=3

bad "unknown option" good.toml 1 "unknown or incomplete option '--frobnicate'" --frobnicate
[ "$(grep -c "^usage: islandpso CONFIG" <<<"$out")" -eq 1 ] && pass "usage printed once" ||
  fail "usage printed $(grep -c "^usage: islandpso CONFIG" <<<"$out") times"

bad "missing config file" missing.toml 1 "cannot read config 'missing.toml'"
finish
