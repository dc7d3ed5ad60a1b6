# Shared by the end-to-end benchmarks (bench/e2e.sh, bench/migration.sh,
# bench/two_gpus.sh): their
# scratch directory, one timed run of islandpso and the median of a column.
# The caller sets $runs, and optionally the array $launch (a launcher such
# as mpirun and its options), and runs in the scratch directory
# (bench_scratch; out.log and runs.txt are written there).
# shellcheck shell=bash disable=SC2154

# bench_scratch DIR: $bin, the absolute path of DIR (where islandpso is),
# and a scratch directory $work, the current one from now on, removed when
# the script exits.
bench_scratch() {
  bin=$(cd "$1" && pwd) || exit 2
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  cd "$work" || exit 1
}

median() { sort -g | awk '{v[NR]=$1} END {if (NR == 0) print "nan"; else if (NR % 2) print v[(NR+1)/2]; else printf "%.6g\n", (v[NR/2]+v[NR/2+1])/2}'; }
now() { date +%s.%N; }

# run_one ARGS...: prints "WALL INRUN" of one process (INRUN, the summary's
# `time`, "nan" if none).
run_one() {
  local t0 t1 inrun
  t0=$(now)
  "${launch[@]}" "$bin/islandpso" "$@" >out.log 2>&1
  local rc=$?
  t1=$(now)
  if [ $rc -ne 0 ]; then
    echo "islandpso $* failed ($rc):" >&2
    tail -5 out.log >&2
  fi
  inrun=$(awk '/^ *time +[0-9.]+ s/ {print $2}' out.log | tail -1)
  awk -v a="$t0" -v b="$t1" -v r="${inrun:-nan}" 'BEGIN {printf "%.4f %s\n", b - a, r}'
}

# run_medians ARGS...: a warm-up run, then $runs runs; prints "WALL INRUN"
# medians.
run_medians() {
  run_one "$@" >/dev/null
  : >runs.txt
  for _ in $(seq "$runs"); do run_one "$@" >>runs.txt; done
  echo "$(awk '{print $1}' runs.txt | median) $(awk '{print $2}' runs.txt | median)"
}
