#!/bin/bash
# Ring migration on 4 ranks (CPU backend), checked from the HDF5 file by check_migrations.py: ring and bidirectional ring (minimize), ring (maximize, run not ending on a migration), and a bidirectional ring offering 12 migrants to 24 particles; then several islands per rank on the global ring (8 on 4 ranks, ring; 8 on 2 ranks and 3 on 1 rank, bidirectional), migrants moving inside ranks and across them; then the random policies (select = random, policy = replace_random, both) and a probability of migration per link, the first migration exactly as their draws say.
#
# RANKS and ISLANDS (environment of run_case) choose the ranks (default 4)
# and run.islands (default one per rank).
#
# Each run has history_interval = 1 and snapshot_interval = migration.interval,
# and an isolated twin (migration.interval = 0, same seed) whose snapshot at
# the first migration iteration is the migrating run's swarm just before it.
. "$IPSO_TEST_DIR/lib/common.sh"
"$IPSO_PYTHON" -c "import h5py" 2>/dev/null || { echo "skipped: $IPSO_PYTHON has no h5py"; exit 77; }
every=10

# run_case NAME GOAL TOPOLOGY ITERATIONS MIGRANTS [CHECK-OPTIONS]: the migrating run and its
# twin, then the checks.
run_case() {
  local name=$1 goal=$2 topology=$3 its=$4 migrants=$5; shift 5
  # SWARM: extra keys of the case (the swarm's own topology and clamp, the
  # migration policies).
  # The watchdog turns a hang (a lost message) into a failure within seconds.
  local set=(--set run.seed=7 --set "objective.goal=\"$goal\"" --set 'run.watchdog="00:00:20"')
  ipso_config "$name.toml" rastrigin 10 24 "$its" output.history_interval=1 \
    "output.snapshot_interval=$every" "migration.interval=$every" "migration.migrants=$migrants" \
    "migration.topology=\"$topology\"" "${SWARM[@]}"
  local ranks=${RANKS:-4}
  [ -z "${ISLANDS:-}" ] || set+=(--set "run.islands=$ISLANDS")
  mpi "$ranks" "$name.toml" "${set[@]}" --set "run.output=\"$name.h5\"" >"$name.log" 2>&1 ||
    { fail "$name: run exited $?"; tail -15 "$name.log"; return; }
  mpi "$ranks" "$name.toml" "${set[@]}" --set "run.output=\"$name-twin.h5\"" \
    --set migration.interval=0 --set "run.max_iterations=$every" >"$name-twin.log" 2>&1 ||
    { fail "$name: isolated twin exited $?"; tail -15 "$name-twin.log"; return; }
  echo "== $name"
  if "$IPSO_PYTHON" "$IPSO_TEST_DIR/mpi/check_migrations.py" "$name.h5" "$name-twin.h5" \
    --log "$name.log" --ranks "$ranks" "$@"; then
    pass "$name: migrations as the topology and the policy say"
  else
    fail "$name: migration checks"
  fi
}

SWARM=()
run_case ring minimize ring 100 3
run_case bidirectional minimize bidirectional_ring 100 3
run_case ring-maximize maximize ring 95 3
# 12 migrants offered to 24 particles (the most allowed): some are worse than
# the particle they would replace, which must then stay. With seed 7 that
# happens for the global-best swarm with the wide clamp (the defaults before
# the ring); with the default ring every migrant of the first migration
# replaces its particle, which would leave the rule untested.
SWARM=('swarm.topology="global"' swarm.velocity_clamp=0.5)
run_case many-migrants minimize bidirectional_ring 40 6 --want-kept
# Several islands per rank: the global ring of islands, not of ranks.
SWARM=()
RANKS=4 ISLANDS=8 run_case ring-8-on-4 minimize ring 40 3
RANKS=2 ISLANDS=8 run_case bidirectional-8-on-2 minimize bidirectional_ring 40 3
RANKS=1 ISLANDS=3 run_case bidirectional-3-on-1 maximize bidirectional_ring 30 2
# The random policies: the first migration exactly as the draws of
# src/migration.c (reimplemented in check_migrations.py) say, particles
# kept where the migrant is not better; 8 islands on 4 ranks.
SWARM=('swarm.topology="global"' swarm.velocity_clamp=0.5 'migration.select="random"')
RANKS=4 ISLANDS=8 run_case random-select minimize bidirectional_ring 40 3
SWARM=('swarm.topology="global"' swarm.velocity_clamp=0.5 'migration.policy="replace_random"')
RANKS=4 ISLANDS=8 run_case random-replace minimize bidirectional_ring 40 6 --want-kept
SWARM=('migration.select="random"' 'migration.policy="replace_random"')
RANKS=2 ISLANDS=8 run_case random-both maximize ring 40 3 --want-kept
# A probability of migration per link: the links that carry migrants and
# the first migration exactly as the draws say.
SWARM=(migration.probability=0.5)
RANKS=4 ISLANDS=8 run_case probability minimize bidirectional_ring 40 3
finish
