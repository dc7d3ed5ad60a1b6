#!/bin/bash
# What a user waits for: for each design workload, the wall time of
# `islandpso configs/X.toml` as a whole process, its in-run time (the
# summary's `time`), and the kernel-only time (bench_gpu, CUDA events),
# side by side; then the same with checkpoints off, one iteration without
# output, and `islandpso --version`. Every time is the median of --runs runs
# after one warm-up run (which also fills the kernel cache).
#
#   bash bench/e2e.sh [--runs N] [--backend gpu|cpu] [--bin DIR] [--only NAME|--startup] [--extra "--set k=v"]
#
# --startup: only the one-iteration run and --version (what the CPU backend
# of a small machine is measured with).
#
# DIR holds islandpso and bench_gpu (default build-gpu). Markdown on stdout.
set -uo pipefail
runs=5
backend=gpu
bindir=build-gpu
only=
extra=
while [ $# -gt 0 ]; do
  case $1 in
  --runs) runs=$2; shift ;;
  --backend) backend=$2; shift ;;
  --bin) bindir=$2; shift ;;
  --only) only=$2; shift ;;
  --startup) only=none ;;
  --extra) extra=$2; shift ;;
  *) echo "usage: bench/e2e.sh [--runs N] [--backend gpu|cpu] [--bin DIR] [--only NAME] [--extra ARGS]" >&2; exit 2 ;;
  esac
  shift
done
src=$(cd "$(dirname "$0")/.." && pwd)
bin=$(cd "$bindir" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

median() { sort -g | awk '{v[NR]=$1} END {if (NR == 0) print "nan"; else if (NR % 2) print v[(NR+1)/2]; else printf "%.6g\n", (v[NR/2]+v[NR/2+1])/2}'; }
now() { date +%s.%N; }

# run_one CONFIG ARGS...: prints "WALL INRUN" of one process (INRUN "nan" if none).
run_one() {
  local t0 t1 inrun
  t0=$(now)
  "$bin/islandpso" "$@" >out.log 2>&1
  local rc=$?
  t1=$(now)
  if [ $rc -ne 0 ]; then
    echo "islandpso $* failed ($rc):" >&2
    tail -5 out.log >&2
  fi
  inrun=$(awk '/^ *time +[0-9.]+ s/ {print $2}' out.log | tail -1)
  awk -v a="$t0" -v b="$t1" -v r="${inrun:-nan}" 'BEGIN {printf "%.4f %s\n", b - a, r}'
}

# measure LABEL ARGS...: warm-up, then RUNS runs; prints "LABEL WALL INRUN" medians.
measure() {
  local label=$1
  shift
  run_one "$@" >/dev/null
  : >times
  for _ in $(seq "$runs"); do run_one "$@" >>times; done
  echo "$label $(awk '{print $1}' times | median) $(awk '{print $2}' times | median)"
}

# kernel NAME SYNC: bench_gpu's median for the queue-lock kernel in the
# config's sync mode, its default launch mode (seconds).
kernel() {
  [ "$backend" = gpu ] && [ -x "$bin/bench_gpu" ] || { echo nan; return; }
  "$bin/bench_gpu" --only "$1" --reps "$runs" --csv k.csv >/dev/null 2>&1 || { echo nan; return; }
  awk -F, -v sync="$2" 'NR > 1 && $2 == "queue_lock" && $3 == sync {print $5; exit}' k.csv
}

declare -A bench_name=(
  [cubic_1d_2048]=cubic-1d-2048 [cubic_1d_65536]=cubic-1d-65536
  [cubic_120d_32768]=cubic-120d-32768 [cubic_120d_131072]=cubic-120d-131072
  [rastrigin_30d_float]=rastrigin-30d-65536-float)

[ "$only" = none ] || echo "| config | kernel alone | in-run time | wall | wall - kernel | checkpoints off: in-run | wall |"
[ "$only" = none ] && echo "| run | | in-run time | wall | | | |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for cfg in cubic_120d_32768 cubic_120d_131072 rastrigin_30d_float cubic_1d_2048 cubic_1d_65536; do
  [ -n "$only" ] && [ "$only" != "$cfg" ] && continue
  sync=$(sed -n 's/^ *sync *= *"\([a-z]*\)".*/\1/p' "$src/configs/$cfg.toml" | head -1)
  k=$(kernel "${bench_name[$cfg]}" "${sync:-strict}")
  # shellcheck disable=SC2086
  read -r _ w r < <(measure "$cfg" "$src/configs/$cfg.toml" --backend "$backend" --overwrite $extra)
  # shellcheck disable=SC2086
  read -r _ w0 r0 < <(measure "$cfg" "$src/configs/$cfg.toml" --backend "$backend" --overwrite \
    --set 'output.checkpoint=""' $extra)
  printf "| %s | %s s | %s s | %s s | %s s | %s s | %s s |\n" "$cfg" "$k" "$r" "$w" \
    "$(awk -v w="$w" -v k="$k" 'BEGIN {printf "%.3f", w - (k == "nan" ? 0 : k)}')" "$r0" "$w0"
done
if [ -z "$only" ] || [ "$only" = none ]; then
  read -r _ w r < <(measure one "$src/configs/rastrigin_30d_float.toml" --backend "$backend" \
    --set run.max_iterations=1 --set 'run.output=""' --set 'output.checkpoint=""')
  echo "| one iteration, no output | | $r s | $w s | | | |"
  read -r _ w _ < <(measure version --version)
  echo "| \`islandpso --version\` | | | $w s | | | |"
fi
