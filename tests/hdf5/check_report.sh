#!/bin/sh
# tools/islandpso-report on a run file written by test_h5out: the summary
# names the best fitness, island and iteration, both PNGs are written (to
# --out and next to the file), and a missing or non-HDF5 file, a checkpoint
# and another program's HDF5 file exit 2 saying what they are; under a PATH
# whose python3 has no h5py, the build's copy runs with the Python it names
# and the source's exits 1 saying what it needs.
#
# Usage: check_report.sh TEST_H5OUT. Environment (CTest): MPIEXEC,
# MPIEXEC_NUMPROC_FLAG, IPSO_PYTHON, IPSO_SOURCE_DIR. Exit 0 pass, 1 fail,
# 77 skip (no Python with h5py and matplotlib).
set -u

test_h5out=$1
python=${IPSO_PYTHON:-python3}
report=${IPSO_SOURCE_DIR:?}/tools/islandpso-report

if ! "$python" -c 'import h5py, matplotlib' 2>/dev/null; then
  echo "check_report: $python has no h5py or matplotlib: skipped"
  exit 77
fi

dir=$(mktemp -d "${TMPDIR:-/tmp}/ipso-report.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
failures=0

fail() {
  echo "check_report: FAIL: $*"
  failures=$((failures + 1))
}

# The PNG signature: \211 P N G \r \n \032 \n.
is_png() {
  [ -s "$1" ] && [ "$(od -An -tx1 -N8 "$1" | tr -d ' \n')" = 89504e470d0a1a0a ]
}

if ! ${MPIEXEC:?} ${MPIEXEC_NUMPROC_FLAG:?} 4 "$test_h5out" "$dir" >"$dir/test.log" 2>&1; then
  cat "$dir/test.log"
  fail "test_h5out did not write a run file"
  exit 1
fi
run=$dir/run.h5

mkdir "$dir/out"
if "$python" "$report" "$run" --out "$dir/out" >"$dir/summary.txt" 2>&1; then
  cat "$dir/summary.txt"
  # test_h5out's result: best fitness 0.015625 by island 3 at iteration 10.
  grep -q "best fitness.*0.015625" "$dir/summary.txt" || fail "summary lacks the best fitness"
  grep -q "island 3" "$dir/summary.txt" || fail "summary lacks the best island"
  grep -q "iteration 10" "$dir/summary.txt" || fail "summary lacks the final iteration"
  grep -qi "migrations: *10" "$dir/summary.txt" || fail "summary lacks the number of migrations"
  grep -q "snapshots:.*5.*10" "$dir/summary.txt" || fail "summary lacks the snapshots"
  for kind in convergence evaluations; do
    is_png "$dir/out/run-$kind.png" || fail "out/run-$kind.png is not a PNG"
  done
else
  cat "$dir/summary.txt"
  fail "islandpso-report $run --out failed"
fi

# Without --out the plots go next to the file.
"$python" "$report" "$run" >/dev/null 2>&1 || fail "islandpso-report $run failed"
is_png "$dir/run-convergence.png" || fail "run-convergence.png not written next to the run"

"$python" "$report" "$dir/absent.h5" >/dev/null 2>"$dir/err.txt"
[ $? -eq 2 ] || fail "a missing file does not exit 2"
grep -q "absent.h5" "$dir/err.txt" || fail "the message for a missing file does not name it"
echo "not HDF5" >"$dir/text.h5"
"$python" "$report" "$dir/text.h5" >/dev/null 2>"$dir/err.txt"
[ $? -eq 2 ] || fail "a non-HDF5 file does not exit 2"

# HDF5 files that are not a run's output: a checkpoint, another program's.
printf '[objective]\nname = "sphere"\ndimensions = 2\n[swarm]\nparticles = 8\n[run]\nbackend = "cpu"\nmax_iterations = 20\noutput = "%s/c.h5"\n[output]\ncheckpoint_interval = 10\nprogress = "off"\n' \
  "$dir" >"$dir/c.toml"
"${IPSO_BIN:?}" "$dir/c.toml" >/dev/null 2>&1 && [ -f "$dir/c.ckpt.h5" ] || fail "making a checkpoint"
"$python" "$report" "$dir/c.ckpt.h5" >"$dir/out.txt" 2>"$dir/err.txt"
[ $? -eq 2 ] && [ ! -s "$dir/out.txt" ] || fail "a checkpoint does not exit 2 with nothing printed"
grep -q "is an islandpso checkpoint, not a run's output file" "$dir/err.txt" ||
  fail "a checkpoint: $(cat "$dir/err.txt")"
"$python" -c 'import h5py, sys; f = h5py.File(sys.argv[1], "w"); f["x"] = [1, 2]; f.attrs["version"] = "9"' \
  "$dir/other.h5"
"$python" "$report" "$dir/other.h5" >"$dir/out.txt" 2>"$dir/err.txt"
[ $? -eq 2 ] && [ ! -s "$dir/out.txt" ] || fail "another program's HDF5 file does not exit 2"
grep -q "is not an islandpso run's output file (no root attribute 'config', root attribute 'seed', root attribute 'islands', root attribute 'started', group /history)" "$dir/err.txt" ||
  fail "another program's file: $(cat "$dir/err.txt")"

# A PATH whose python3 has no h5py (a virtual environment's, say): the
# build's copy starts the Python it was built with; the source's says what
# it needs.
mkdir "$dir/bin"
printf '#!/bin/sh\nexec %s -S "$@"\n' "$python" >"$dir/bin/python3"
chmod +x "$dir/bin/python3"
built=$(dirname "${IPSO_BIN:?}")/islandpso-report
PATH=$dir/bin:$PATH "$built" "$run" --out "$dir/out2" >/dev/null 2>"$dir/err.txt" ||
  fail "the build's copy under a PATH with another python3 first: $(cat "$dir/err.txt")"
is_png "$dir/out2/run-convergence.png" || fail "the build's copy wrote no plot"
PATH=$dir/bin:$PATH "$report" "$run" --out "$dir/out3" >/dev/null 2>"$dir/err.txt"
[ $? -eq 1 ] && grep -q "cannot import h5py: the report needs h5py and matplotlib" "$dir/err.txt" ||
  fail "the source's copy with a python3 without h5py: $(cat "$dir/err.txt")"

[ "$failures" -eq 0 ] || exit 1
echo "check_report: pass"
