#!/bin/bash
# What migration costs a run of many islands on one GPU: 64 islands x 1,024
# particles (30-D Rastrigin in float, the global-best swarm of
# configs/rastrigin_30d_float.toml, 2,000 iterations, checkpoints off), with
# migration every 10 and every 100 iterations and without it; the in-run
# time (the summary's `time`) and the wall time of the process, medians of
# --runs runs after one warm-up run. Per iteration: in-run time / 2,000.
#
#   bash bench/migration.sh [--runs N] [--bin DIR] [--np R] [--extra "--set k=v"]
#
# --np R: R ranks (mpirun), R a divisor of 64; with R = 1 no mpirun.
# DIR holds islandpso (default build-gpu). Markdown on stdout.
set -uo pipefail
runs=5
bindir=build-gpu
np=1
extra=
while [ $# -gt 0 ]; do
  case $1 in
  --runs) runs=$2; shift ;;
  --bin) bindir=$2; shift ;;
  --np) np=$2; shift ;;
  --extra) extra=$2; shift ;;
  *) echo "usage: bench/migration.sh [--runs N] [--bin DIR] [--np R] [--extra ARGS]" >&2; exit 2 ;;
  esac
  shift
done
src=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/run_lib.sh
. "$src/bench/run_lib.sh"
bench_scratch "$bindir"
iterations=2000

launch=()
[ "$np" -gt 1 ] && launch=(mpirun --oversubscribe -np "$np")

echo "| migration | in-run time | per iteration | vs no migration | wall |"
echo "|---|---:|---:|---:|---:|"
base=
for interval in 0 100 10; do
  # shellcheck disable=SC2086
  read -r w r < <(run_medians "$src/configs/rastrigin_30d_float.toml" --backend gpu --overwrite \
    --set run.islands=64 --set swarm.particles=1024 --set run.max_iterations=$iterations \
    --set 'output.checkpoint=""' --set migration.interval=$interval $extra)
  [ -z "$base" ] && base=$r
  label=$([ "$interval" = 0 ] && echo "off" || echo "every $interval")
  printf "| %s | %s s | %s us | %s | %s s |\n" "$label" "$r" \
    "$(awk -v r="$r" -v n=$iterations 'BEGIN {printf "%.2f", r / n * 1e6}')" \
    "$(awk -v r="$r" -v b="$base" 'BEGIN {printf "%.3fx", r / b}')" "$w"
done
