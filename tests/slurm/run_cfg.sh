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
  cat >"$1" <<EOF
[run]
name = "interrupted"
seed = 2027
backend = "cpu"
max_iterations = $2
output = "run.h5"

[objective]
name = "rastrigin"
dimensions = 20

[swarm]
particles = 256

[migration]
interval = 100
migrants = 4

[output]
history_interval = 10
snapshot_interval = $k
checkpoint_interval = $k
progress = "off"
EOF
}

# best_of LOG: the "best fitness" line of islandpso's summary.
best_of() { grep -E '^ *best fitness' "$1" | tail -1; }

# stopped_at LOG: the iteration of the last "stopped at iteration N" message.
stopped_at() { sed -n 's/.*stopped at iteration \([0-9]*\) by.*/\1/p' "$1" | tail -1; }

# ckpt_iteration FILE: the iteration a checkpoint was written at.
ckpt_iteration() {
  "$IPSO_PYTHON" -c 'import sys, h5py; print(int(h5py.File(sys.argv[1], "r").attrs["iteration"]))' "$1"
}

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
# wall-clock datasets), the same /migrations rows, the same printed best
# fitness.
same_run() {
  if "$IPSO_PYTHON" "$IPSO_TEST_DIR/lib/h5compare.py" "$1" "$3" --only result --only history \
    --only snapshots >cmp.log 2>&1; then
    pass "$5: /result, /history, /snapshots identical to the uninterrupted run"
  else
    fail "$5: HDF5 differs from the uninterrupted run"
    cat cmp.log
  fi
  same_rows "$1" "$3" && pass "$5: same /migrations rows" || fail "$5: /migrations rows differ"
  local a b
  a=$(best_of "$2")
  b=$(best_of "$4")
  if [ -n "$a" ] && [ "$a" = "$b" ]; then
    pass "$5: printed best fitness identical ($(echo "$a" | tr -s ' ' | cut -d' ' -f4))"
  else
    fail "$5: best fitness '$b', uninterrupted '$a'"
  fi
}

# reference ITERATIONS: the uninterrupted 4-rank run in ref/ (ref/run.h5, ref/log).
reference() {
  mkdir -p ref
  write_run_cfg ref/run.toml "$1"
  if (cd ref && mpi 4 run.toml >log 2>&1); then
    pass "uninterrupted run ($(best_of ref/log | tr -s ' '))"
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
