#!/bin/bash
# Exact restart of strict 4-rank CPU runs: stopped at a checkpoint and continued, the file ends as the uninterrupted run's.
#
# Usage: e2e_restart.sh iterations|signal|clpso|mixed
#
# Every run has its own directory with the same relative names (run.toml,
# run.h5, run.ckpt.h5), so the config text stored in the files is the same.
# Files are compared with tests/lib/h5compare.py, which compares every
# dataset and attribute bit for bit except the wall-clock ones.
#
# iterations  120 iterations, a checkpoint every 60. The interrupted run is
#   the same config with --set run.max_iterations=60: a complete run of 60
#   iterations (exit 0, /result at 60, the checkpoint at 60), then continued
#   with --restart run.ckpt.h5 --set run.max_iterations=120. Expected:
#   /result, /history, /migrations and every snapshot (the final one, 120,
#   included) identical to the uninterrupted run; the root attributes seed,
#   islands and version identical; the stored config differs at most in
#   run.max_iterations (it is written when the file is created, by the
#   60-iteration leg); the final checkpoints identical; the printed summaries
#   identical. With history_interval = 1 the first leg's closing history row
#   (60) is a regular row. A second pair with history_interval = 7 makes the
#   first leg end on an iteration that is not a multiple: the continued
#   history may then hold that closing row (60) in addition to the
#   uninterrupted run's rows, and if it does, its values must be the
#   uninterrupted run's at iteration 60 (taken from the history_interval = 1
#   run); every other row must be identical, and the final checkpoint's
#   history_rows must count the rows in the file.
# signal  12000 iterations, a checkpoint every 2000, migration every 50.
#   SIGUSR1 to mpirun once run.ckpt.h5.prev exists (a checkpoint at 2000 or
#   later has been written; when the signal arrives is otherwise left to the
#   machine's speed): mpirun exits 3, rank 0
#   says where it stopped, the checkpoint is at that iteration (the end of the
#   segment in which the signal was seen: a multiple of 50) with the previous
#   one kept as .prev, the output holds the history up to it and no result.
#   A copy of the stopped directory is continued with --resume (the config's
#   checkpoint), the original with --restart run.ckpt.h5; both must equal the
#   uninterrupted run in every dataset and attribute but the wall-clock ones,
#   /migrations row for row, and end with the same checkpoint.
# clpso  the clpso topology (exemplars of epochs of 7 iterations, inertia
#   0.9 -> 0.4 over max_iterations, which therefore stays the same): 120
#   iterations, a checkpoint every 60, migration every 10. The checkpoint of
#   iteration 60 (kept as run.ckpt.h5.prev, in the middle of an epoch) is
#   continued with --restart in a copy of the finished run, on 4 ranks and
#   on 2: the output and the final checkpoint must be identical to the
#   uninterrupted run's, and so must the printed results.
# mixed  the same with the default topology "mixed" on 8 islands (islands 6
#   and 7 follow their mean, the others a ring).
. "$IPSO_TEST_DIR/lib/common.sh"
mode=${1:?usage: e2e_restart.sh iterations|signal|clpso|mixed}
nranks=4 islands=()
compare_py=$IPSO_TEST_DIR/lib/h5compare.py
if ! "$IPSO_PYTHON" -c 'import h5py' 2>/dev/null; then
  echo "$IPSO_PYTHON has no h5py: skipped"
  exit 77
fi

# write_cfg FILE ITERATIONS HISTORY SNAPSHOT CHECKPOINT MIGRATION DIMS PARTICLES [KEY=VALUE...]
write_cfg() {
  ipso_config "$1" rastrigin "$7" "$8" "$2" 'run.name="restart"' run.seed=4242 'run.output="run.h5"' \
    'swarm.sync="strict"' "migration.interval=$6" migration.migrants=4 "output.history_interval=$3" \
    "output.snapshot_interval=$4" "output.checkpoint_interval=$5" 'output.checkpoint="run.ckpt.h5"' \
    "${@:9}"
}

# run_in DIR LOG ARGS...: islandpso on $nranks ranks in DIR; fails the test on a non-zero exit.
run_in() {
  local dir=$1 log=$2; shift 2
  if (cd "$dir" && mpi "$nranks" run.toml "$@" >"$log" 2>&1); then
    pass "$dir: islandpso run.toml${*:+ $*} (exit 0)"
  else
    fail "$dir: islandpso run.toml${*:+ $*}: exit $?"
    tail -20 "$dir/$log"
    finish
  fi
}

# same WHAT A B [h5compare options]: the two files compare identical.
same() {
  local what=$1 a=$2 b=$3; shift 3
  if "$IPSO_PYTHON" "$compare_py" "$a" "$b" "$@" >cmp.log 2>&1; then pass "$what"; else
    fail "$what"; sed 's/^/     /' cmp.log; fi
}

# summary LOG: the printed result lines (not the times).
summary() { grep -E "finished at|best fitness|position|known optimum|^ *evaluations" "$1" | sed 's/(\([0-9.e+]*\) per second)//'; }

same_summary() {
  if [ -n "$(summary "$1")" ] && [ "$(summary "$1")" = "$(summary "$2")" ]; then
    pass "$3: printed result identical ($(grep -E '^ *best fitness' "$1" | tr -s ' ' | sed 's/^ //'))"
  else
    fail "$3: printed result differs"; diff <(summary "$1") <(summary "$2") | sed 's/^/     /'
  fi
}

# attr FILE NAME: a root attribute of an HDF5 file.
attr() { "$IPSO_PYTHON" -c 'import sys, h5py; print(h5py.File(sys.argv[1], "r").attrs[sys.argv[2]])' "$1" "$2"; }

# has FILE PATH: the object PATH exists in FILE.
has() { "$IPSO_PYTHON" -c 'import sys, h5py; sys.exit(0 if sys.argv[2] in h5py.File(sys.argv[1], "r") else 1)' "$1" "$2"; }

# root_attrs_match REF CONT: seed, islands, version identical; config differs at most in run.max_iterations.
root_attrs_match() {
  "$IPSO_PYTHON" - "$1" "$2" <<'PY'
import sys, h5py
try:
    import tomllib
except ImportError:
    tomllib = None
a, b = (h5py.File(p, "r").attrs for p in sys.argv[1:])
bad = [k for k in ("seed", "islands", "version") if a[k] != b[k]]
ca, cb = (x["config"].decode() if isinstance(x["config"], bytes) else x["config"] for x in (a, b))
if tomllib:
    ta, tb = tomllib.loads(ca), tomllib.loads(cb)
    ta["run"].pop("max_iterations"), tb["run"].pop("max_iterations")
    if ta != tb:
        bad.append("config (beyond run.max_iterations)")
else:
    strip = lambda s: [l for l in s.splitlines() if not l.startswith("max_iterations")]
    if strip(ca) != strip(cb):
        bad.append("config (beyond run.max_iterations)")
print(", ".join(bad) or "same")
sys.exit(1 if bad else 0)
PY
}

iterations_pair() { # iterations_pair SUFFIX HISTORY_INTERVAL
  local ref=ref$1 cut=cut$1
  mkdir "$ref" "$cut"
  write_cfg "$ref/run.toml" 120 "$2" 20 60 10 8 32
  cp "$ref/run.toml" "$cut/run.toml"
  run_in "$ref" log
  run_in "$cut" log1 --set run.max_iterations=60
  # The first leg is a complete 60-iteration run.
  local it rows
  it=$("$IPSO_PYTHON" -c 'import h5py; print(int(h5py.File("'"$cut"'/run.h5", "r")["result/iteration"][()]))')
  [ "$it" = 60 ] && pass "$cut: first leg's /result at iteration 60" || fail "$cut: first leg's /result at iteration '$it'"
  [ "$(attr "$cut/run.ckpt.h5" iteration)" = 60 ] && pass "$cut: checkpoint at iteration 60" ||
    fail "$cut: checkpoint at iteration $(attr "$cut/run.ckpt.h5" iteration), want 60"
  run_in "$cut" log2 --restart run.ckpt.h5 --set run.max_iterations=120
  grep -q "restart from *run.ckpt.h5" "$cut/log2" && pass "$cut: restart announced" || fail "$cut: no 'restart from run.ckpt.h5' line"
  has "$ref/run.h5" snapshots/120 && has "$cut/run.h5" snapshots/120 && pass "$ref, $cut: final snapshot /snapshots/120 written" ||
    fail "final snapshot /snapshots/120 missing"
  if [ "$2" = 1 ]; then
    same "history_interval 1: /result, /history, /migrations, /snapshots identical to the uninterrupted run" \
      "$ref/run.h5" "$cut/run.h5" --only result --only history --only migrations --only snapshots
  else
    same "history_interval $2: /result, /migrations, /snapshots identical to the uninterrupted run" \
      "$ref/run.h5" "$cut/run.h5" --only result --only migrations --only snapshots
    history_with_closing_row "$ref/run.h5" "$cut/run.h5" ref1/run.h5 60 >hist.log 2>&1 &&
      pass "history_interval $2: $(tail -1 hist.log)" || { fail "history_interval $2: /history"; sed 's/^/     /' hist.log; }
  fi
  local why
  why=$(root_attrs_match "$ref/run.h5" "$cut/run.h5") && pass "$cut: root attributes seed, islands, version identical; config the same but for run.max_iterations" ||
    fail "$cut: root attributes differ: $why"
  if [ "$2" = 1 ]; then
    same "$cut: final checkpoint identical to the uninterrupted run's" "$ref/run.ckpt.h5" "$cut/run.ckpt.h5"
  else
    # history_rows counts the rows in the file, the closing row included.
    same "$cut: final checkpoint identical to the uninterrupted run's (but history_rows)" \
      "$ref/run.ckpt.h5" "$cut/run.ckpt.h5" --ignore history_rows
    rows=$("$IPSO_PYTHON" -c 'import h5py; print(len(h5py.File("'"$cut"'/run.h5", "r")["history/iteration"]))')
    [ "$(attr "$cut/run.ckpt.h5" history_rows)" = "$rows" ] && pass "$cut: checkpoint history_rows = $rows rows in the output" ||
      fail "$cut: checkpoint history_rows $(attr "$cut/run.ckpt.h5" history_rows), the output has $rows rows"
  fi
  same_summary "$ref/log" "$cut/log2" "$cut"
}

# history_with_closing_row REF CONT FULL AT: CONT's /history is REF's, plus at
# most one row at iteration AT whose values are FULL's row at AT.
history_with_closing_row() {
  "$IPSO_PYTHON" - "$@" <<'PY'
import sys, h5py, numpy as np
ref, cont, full = (h5py.File(p, "r")["history"] for p in sys.argv[1:4])
at = int(sys.argv[4])
cols = ["iteration", "island_best", "global_best", "evaluations"]
r, c = {k: ref[k][()] for k in cols}, {k: cont[k][()] for k in cols}
extra = sorted(set(c["iteration"].tolist()) - set(r["iteration"].tolist()))
if extra not in ([], [at]):
    sys.exit(f"rows at {extra} that the uninterrupted run does not have")
keep = c["iteration"] != at if extra else np.ones(len(c["iteration"]), bool)
for k in cols:
    if c[k][keep].tobytes() != r[k].tobytes() or c[k].dtype != r[k].dtype:
        sys.exit(f"/history/{k} differs from the uninterrupted run's (beyond a row at {at})")
if len(cont["wall_seconds"]) != len(c["iteration"]):
    sys.exit("/history/wall_seconds has another length")
if extra:
    i = int(np.flatnonzero(c["iteration"] == at)[0])
    j = int(np.flatnonzero(full["iteration"][()] == at)[0])
    for k in cols:
        if c[k][i].tobytes() != full[k][j].tobytes():
            sys.exit(f"the extra row at {at} has /history/{k} {c[k][i]}, the run at {at} had {full[k][j]}")
    print(f"/history identical but for the first leg's closing row at {at}, whose values are the run's at {at}")
else:
    print("/history identical to the uninterrupted run")
PY
}

case $mode in
iterations)
  iterations_pair 1 1
  iterations_pair 7 7
  ;;
signal)
  its=12000
  mkdir ref cut
  write_cfg ref/run.toml "$its" 1 2000 2000 50 20 96 "${islands[@]}"
  cp ref/run.toml cut/run.toml
  run_in ref log
  (cd cut && exec "$MPIEXEC" "$MPIEXEC_NUMPROC_FLAG" "$nranks" "$IPSO_BIN" run.toml >log 2>&1) &
  pid=$!
  end=$((SECONDS + 60))
  # A .prev exists once a second checkpoint has been written: at iteration
  # 2000 or later (islandpso may write one at iteration 0 too).
  until [ -e cut/run.ckpt.h5.prev ] || [ "$SECONDS" -ge "$end" ] || ! kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
  if [ ! -e cut/run.ckpt.h5.prev ]; then
    fail "no second checkpoint within 60 s"
    kill -KILL "$pid" 2>/dev/null
    tail -20 cut/log
    finish
  fi
  kill -USR1 "$pid"
  rc=0
  wait "$pid" || rc=$?
  [ "$rc" -eq 3 ] && pass "SIGUSR1 to mpirun: exit 3" || { fail "SIGUSR1 to mpirun: exit $rc, want 3"; tail -20 cut/log; finish; }
  n=$(sed -n 's/.*stopped at iteration \([0-9]*\) by User defined signal 1; checkpoint written to run.ckpt.h5$/\1/p' cut/log)
  if [ -n "$n" ]; then pass "stop message: iteration $n, checkpoint run.ckpt.h5"; else
    fail "no stop message naming SIGUSR1 and the checkpoint"; tail -20 cut/log; finish; fi
  [ "$n" -ge 2000 ] && [ "$n" -lt "$its" ] && [ $((n % 50)) -eq 0 ] &&
    pass "stopped mid-run at a segment end ($n of $its: a multiple of 50)" ||
    fail "stopped at iteration $n"
  "$IPSO_PYTHON" - cut "$n" 96 4 >stop.log 2>&1 <<'PY' && pass "$(cat stop.log)" || { fail "state after the stop"; cat stop.log; }
import sys, h5py
d, n, N, I = sys.argv[1], *map(int, sys.argv[2:])
ck = h5py.File(f"{d}/run.ckpt.h5", "r").attrs
prev = h5py.File(f"{d}/run.ckpt.h5.prev", "r").attrs
out = h5py.File(f"{d}/run.h5", "r")
want = {"iteration": n, "evaluations": N * I * (n + 1), "history_rows": n + 1}
for k, v in want.items():
    assert int(ck[k]) == v, f"checkpoint {k} = {int(ck[k])}, want {v}"
assert int(prev["iteration"]) == (n - 1) // 2000 * 2000, f"previous checkpoint at {int(prev['iteration'])}"
its = out["history/iteration"][()]
assert its.tolist() == list(range(n + 1)), f"output history rows {its[:3]}..{its[-3:]}, want 0..{n}"
assert "result" not in out, "the stopped run's output has a /result"
assert "finished" not in out.attrs, "the stopped run's output has a 'finished' attribute"
snaps = sorted(int(k) for k in out["snapshots"])
assert snaps == list(range(0, n + 1, 2000)), f"snapshots {snaps}"
print(f"checkpoint at {n} (evaluations, history_rows {n + 1}), .prev at {int(prev['iteration'])}; "
      f"output: history 0..{n}, snapshots {snaps}, no result, not finished")
PY
  cp -a cut resumed
  run_in cut log2 --restart run.ckpt.h5
  run_in resumed log2 --resume
  for d in cut resumed; do
    grep -q "restart from *run.ckpt.h5" "$d/log2" && pass "$d: continued from run.ckpt.h5" || fail "$d: no 'restart from run.ckpt.h5' line"
    same "$d: every dataset and attribute but /migrations and the times identical to the uninterrupted run" \
      ref/run.h5 "$d/run.h5" --ignore migrations
    if "$IPSO_PYTHON" - ref/run.h5 "$d/run.h5" >mig.log 2>&1 <<'PY'
import sys, h5py, numpy as np
a, b = (h5py.File(p, "r")["migrations"][()] for p in sys.argv[1:])
key = lambda m: np.sort(m, order=["iteration", "from", "to"]).tobytes()
if a.dtype != b.dtype or len(a) != len(b) or key(a) != key(b):
    sys.exit(f"different rows ({len(a)} and {len(b)})")
if a.tobytes() != b.tobytes():
    i = int(np.flatnonzero(a != b)[0])
    sys.exit(f"same {len(a)} rows in another order: row {i} is {b[i]}, uninterrupted {a[i]}")
print(f"{len(a)} rows identical, in the same order")
PY
    then pass "$d: /migrations $(cat mig.log)"; else fail "$d: /migrations: $(tail -1 mig.log)"; fi
    same "$d: final checkpoint identical to the uninterrupted run's" ref/run.ckpt.h5 "$d/run.ckpt.h5"
    same_summary ref/log "$d/log2" "$d"
  done
  ;;
clpso | mixed)
  mkdir ref
  if [ "$mode" = clpso ]; then
    write_cfg ref/run.toml 120 1 20 60 10 8 32 'swarm.topology="clpso"' run.islands=4
  else
    write_cfg ref/run.toml 120 1 20 60 10 8 32 'swarm.topology="mixed"' run.islands=8
  fi
  run_in ref log
  [ "$(attr ref/run.ckpt.h5.prev iteration)" = 60 ] && pass "ref: checkpoint of iteration 60 kept" ||
    fail "ref: the previous checkpoint is of iteration $(attr ref/run.ckpt.h5.prev iteration)"
  for ranks in 4 2; do
    d=cut$ranks
    cp -a ref "$d" && cp "$d/run.ckpt.h5.prev" "$d/mid.ckpt.h5"
    if (cd "$d" && mpi "$ranks" run.toml --restart mid.ckpt.h5 >log2 2>&1); then
      pass "$d: --restart mid.ckpt.h5 on $ranks ranks (exit 0)"
    else
      fail "$d: --restart on $ranks ranks: exit $?"; tail -20 "$d/log2"; finish
    fi
    same "$d: $mode continued from iteration 60: every dataset and attribute but the times identical" \
      ref/run.h5 "$d/run.h5"
    same "$d: final checkpoint identical to the uninterrupted run's" ref/run.ckpt.h5 "$d/run.ckpt.h5"
    same_summary ref/log "$d/log2" "$d"
  done
  ;;
*)
  echo "unknown mode '$mode'"
  exit 2
  ;;
esac
finish
