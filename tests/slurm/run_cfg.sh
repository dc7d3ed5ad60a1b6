# shellcheck shell=bash
# Sourced by the signal and Slurm tests (after lib/common.sh): the run they
# interrupt, and the checks that an interrupted and continued run ends as an
# uninterrupted one.

# write_run_cfg FILE ITERATIONS: 4 islands' worth of 20-D Rastrigin on the
# CPU backend, strict, migrating every 100 iterations (so a segment is at
# most 100 iterations: a stop is prompt), a history row every 10 iterations,
# snapshots and a checkpoint every ITERATIONS/10. About 3 s per 10,000
# iterations on 4 ranks of a 2-core machine. Output run.h5 in the directory
# of the run (give every run its own directory: the same relative names keep
# the stored config the same).
write_run_cfg() {
  local k=$(($2 / 10))
  ipso_config "$1" rastrigin 20 256 "$2" 'run.name="interrupted"' run.seed=2027 'run.output="run.h5"' \
    migration.interval=100 migration.migrants=4 output.history_interval=10 \
    "output.snapshot_interval=$k" "output.checkpoint_interval=$k" output.checkpoint=
}

# stopped_at LOG: the iteration of the last "stopped at iteration N" message.
stopped_at() { sed -n 's/.*stopped at iteration \([0-9]*\) by.*/\1/p' "$1" | tail -1; }

# ckpt_iteration FILE: the iteration a checkpoint was written at.
ckpt_iteration() { h5get "$1" /@iteration; }

# same_rows A.h5 B.h5: /migrations holds the same rows in both files, in any
# order (islandpso writes each flush's rows rank by rank, so the order
# depends on where a run was stopped; the contract fixes only the content).
same_rows() {
  "$IPSO_PYTHON" - "$1" "$2" <<'PY'
import sys, h5py, numpy as np
a, b = (np.sort(h5py.File(f, "r")["migrations"][()], order=["iteration", "from", "to"]) for f in sys.argv[1:])
sys.exit(0 if a.dtype == b.dtype and a.tobytes() == b.tobytes() else 1)
PY
}

# same_run REF.h5 REF.log OUT.h5 OUT.log WHAT: the continued run ends as the
# uninterrupted one: /result, /history and /snapshots bit for bit (not the
# wall-clock datasets), the same /migrations rows, and /result's values one
# by one (best fitness, position, island, particle, iteration, evaluations).
# The logs are shown when a check fails.
same_run() {
  if "$IPSO_PYTHON" "$IPSO_TEST_DIR/lib/h5compare.py" "$1" "$3" --only result --only history \
    --only snapshots >cmp.log 2>&1; then
    pass "$5: /result, /history, /snapshots identical to the uninterrupted run"
  else
    fail "$5: HDF5 differs from the uninterrupted run"
    cat cmp.log
  fi
  same_rows "$1" "$3" && pass "$5: same /migrations rows" || fail "$5: /migrations rows differ"
  local before=$fails
  same_result "$1" "$3" "$5"
  [ "$fails" -eq "$before" ] || { tail -n 8 "$2"; tail -n 8 "$4"; }
}

# reference ITERATIONS: the uninterrupted 4-rank run in ref/ (ref/run.h5, ref/log).
reference() {
  mkdir -p ref
  write_run_cfg ref/run.toml "$1"
  if (cd ref && mpi 4 run.toml >log 2>&1); then
    pass "uninterrupted run (best fitness $(h5_best ref/run.h5))"
  else
    fail "uninterrupted run"
    tail -20 ref/log
    finish
  fi
}

# wait_file FILE SECONDS: polls until FILE exists; 1 if it does not within
# SECONDS times IPSO_TEST_TIME_SCALE.
wait_file() {
  local end=$((SECONDS + $(scaled "$2")))
  until [ -e "$1" ]; do
    [ "$SECONDS" -lt "$end" ] || return 1
    sleep 0.05
  done
}
