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
# shellcheck source=bench/run_lib.sh
. "$src/bench/run_lib.sh"
bench_scratch "$bindir"

launch=()

# measure LABEL ARGS...: warm-up, then RUNS runs; prints "LABEL WALL INRUN" medians.
measure() {
  local label=$1
  shift
  echo "$label $(run_medians "$@")"
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
