#!/bin/bash
# Solution quality at the budget of pagmo's PSO archipelago: 4 islands x 64
# particles, 2,000 iterations, 30 dimensions, migration every 100
# iterations (islandpso's defaults for everything else), seeds 1-11; the
# median final error per objective beside pagmo's (measured with pygmo 2.20:
# archipelago of 4 islands, pso(gen=2000) with its defaults, 64 particles,
# ring migration, same budget; the values of the issue that asked for this
# comparison). Markdown on stdout.
#
#   bash bench/quality.sh [--bin DIR] [--seeds N] [--ranks R] [--objectives "a b"]
#                         [--set k=v ...]
#
# DIR holds islandpso (default build). Runs on the CPU backend with R ranks
# (default 4, one island each). --set passes an override to every run (e.g.
# --set swarm.topology=ring --set swarm.neighbours=2, to compare settings
# with the defaults); --objectives runs only those named (any built-in
# objective; pagmo's median is known for the five).
set -uo pipefail
bindir=build
seeds=11
ranks=4
extra=()
objectives="sphere rosenbrock rastrigin griewank ackley"
while [ $# -gt 0 ]; do
  case $1 in
  --bin) bindir=$2; shift ;;
  --seeds) seeds=$2; shift ;;
  --ranks) ranks=$2; shift ;;
  --set) extra+=(--set "$2"); shift ;;
  --objectives) objectives=$2; shift ;;
  *) echo "usage: bench/quality.sh [--bin DIR] [--seeds N] [--ranks R] [--objectives \"a b\"] [--set k=v ...]" >&2; exit 2 ;;
  esac
  shift
done
bin=$(cd "$bindir" && pwd)/islandpso
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMP_NUM_THREADS=1

[ ${#extra[@]} -gt 0 ] && echo "Overrides: ${extra[*]}" && echo
declare -A pagmo=([sphere]=1.5e-52 [rosenbrock]=18.32 [rastrigin]=26.86 [griewank]=0 [ackley]=7.5e-15)
median() { sort -g | awk '{v[NR]=$1} END {if (NR % 2) print v[(NR+1)/2]; else printf "%.6g\n", (v[NR/2]+v[NR/2+1])/2}'; }

echo "| objective | islandpso median error | pagmo median | islandpso <= pagmo | islandpso range |"
echo "|---|---:|---:|---|---|"
for obj in $objectives; do
  : >errors
  for seed in $(seq 1 "$seeds"); do
    cat >q.toml <<EOF
[run]
max_iterations = 2000
output = ""
[objective]
name = "$obj"
dimensions = 30
[swarm]
particles = 64
[migration]
interval = 100
[output]
checkpoint = ""
progress = "off"
EOF
    out=$(mpirun -np "$ranks" "$bin" q.toml --backend cpu --set "run.seed=$seed" "${extra[@]}" 2>&1
    ) || { echo "islandpso failed on $obj, seed $seed: $(echo "$out" | tail -3)" >&2; exit 1; }
    echo "$out" | sed -n 's/.*(error \([0-9.e+-]*\)).*/\1/p' | head -1 >>errors
  done
  m=$(median <errors)
  lo=$(sort -g errors | head -1)
  hi=$(sort -g errors | tail -1)
  ref=${pagmo[$obj]:-}
  ok=-
  [ -n "$ref" ] && ok=$(awk -v a="$m" -v b="$ref" 'BEGIN {print (a <= b) ? "yes" : "no"}')
  echo "| $obj | $m | ${ref:--} | $ok | $lo - $hi |"
done
