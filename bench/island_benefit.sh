#!/bin/bash
# Does the island model help? 4 migrating islands against 4 isolated islands
# (migration.interval = 0) of the same size, same iterations (so the same
# evaluations) and same seeds, CPU backend, on 30-D rastrigin and rosenbrock:
# per objective and migration interval, the median final error over the
# seeds and on how many seeds migrating beat isolated (paired by seed: both
# start from the same swarms and draw the same random numbers until the
# first migration).
#
# Usage: bash bench/island_benefit.sh [BUILD_DIR]       (default: build)
# Settings (environment; the defaults are the study in BENCHMARKS.md):
#   SEEDS=11 FIRST_SEED=1 PARTICLES=32 ITERATIONS=5000 INTERVALS="10 50 200"
#   MIGRANTS=2 TOPOLOGY=ring RANKS=4 DIMENSIONS=30 OBJECTIVES="rastrigin rosenbrock"
#   SWARM_TOPOLOGY=global VELOCITY_CLAMP=0.5  the swarm of the study (made before
#                 the defaults became a ring of 4 and a clamp of 0.05; pass
#                 SWARM_TOPOLOGY=ring VELOCITY_CLAMP=0.05 for today's defaults)
#   RESULTS=FILE  also write one line per run: objective interval seed error evaluations
#                 (interval 0 = isolated)
# Runs the islands with $MPIEXEC (default mpirun), oversubscribed, one OpenMP
# thread per rank. Exit 0 when every run finished with equal evaluations in
# both modes, 1 otherwise.
set -uo pipefail
bin=$(cd "${1:-build}" && pwd)/islandpso
[ -x "$bin" ] || { echo "island_benefit: no islandpso in ${1:-build}" >&2; exit 1; }
seeds=${SEEDS:-11}
first=${FIRST_SEED:-1}
particles=${PARTICLES:-32}
iterations=${ITERATIONS:-5000}
intervals=${INTERVALS:-10 50 200}
migrants=${MIGRANTS:-2}
topology=${TOPOLOGY:-ring}
swarm_topology=${SWARM_TOPOLOGY:-global}
velocity_clamp=${VELOCITY_CLAMP:-0.5}
ranks=${RANKS:-4}
dims=${DIMENSIONS:-30}
objectives=${OBJECTIVES:-rastrigin rosenbrock}
mpiexec=${MPIEXEC:-mpirun}
np_flag=${MPIEXEC_NUMPROC_FLAG:--np}
export OMP_NUM_THREADS=1
export OMPI_MCA_rmaps_base_oversubscribe=${OMPI_MCA_rmaps_base_oversubscribe:-1}
if [ "$(id -u)" -eq 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
results=${RESULTS:-}
[ -z "$results" ] || : >"$results"
run=$(mktemp -d)
trap 'rm -rf "$run"' EXIT
# A private copy: a rebuild during the study neither breaks nor mixes binaries.
cp "$bin" "$run/islandpso" && bin=$run/islandpso

# write_config OBJECTIVE: its config; interval and seed come as --set overrides.
write_config() {
  cat >"$run/$1.toml" <<EOF
[run]
backend = "cpu"
max_iterations = $iterations
output = ""
[objective]
name = "$1"
dimensions = $dims
[swarm]
particles = $particles
topology = "$swarm_topology"
velocity_clamp = $velocity_clamp
[migration]
migrants = $migrants
topology = "$topology"
[output]
checkpoint = ""
progress = "off"
history_interval = 0
EOF
}

# one OBJECTIVE INTERVAL SEED: prints "error evaluations" of one run
# (error = |best fitness - known optimum|, from the printed summary).
one() {
  local log=$run/log
  if ! "$mpiexec" "$np_flag" "$ranks" "$bin" "$run/$1.toml" --set "run.seed=$3" \
    --set "migration.interval=$2" >"$log" 2>&1; then
    echo "island_benefit: $1 interval $2 seed $3 failed:" >&2
    tail -5 "$log" >&2
    return 1
  fi
  awk '/^ *best fitness/ { b = $3 } /^ *known optimum/ { o = $3 } /^ *evaluations/ { e = $2 }
       END { if (b == "" || o == "" || e == "") exit 1
             d = b - o; printf "%.17g %s\n", d < 0 ? -d : d, e }' "$log"
}

# The median of the numbers on stdin.
median() {
  sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) printf "%.6g", v[(NR + 1) / 2]
                                        else printf "%.6g", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

echo "island benefit: $ranks islands x $particles particles, ${dims}-D, $iterations iterations," \
  "$migrants migrants, $topology; isolated = interval 0; seeds $first..$((first + seeds - 1));" \
  "CPU backend"
printf "%-11s %8s %5s %17s %16s %6s %11s\n" objective interval seeds "median migrating" \
  "median isolated" wins evaluations
status=0
for obj in $objectives; do
  write_config "$obj"
  for every in 0 $intervals; do
    : >"$run/err-$every"
    for seed in $(seq "$first" $((first + seeds - 1))); do
      r=$(one "$obj" "$every" "$seed") || { status=1; r="nan -"; }
      echo "$seed $r" >>"$run/err-$every"
      [ -z "$results" ] || echo "$obj $every $seed $r" >>"$results"
    done
  done
  for every in $intervals; do
    # Pairs by seed: "error_migrating error_isolated evaluations_m evaluations_i".
    awk 'NR == FNR { e[$1] = $2; v[$1] = $3; next }
         $2 != "nan" && e[$1] != "" && e[$1] != "nan" { print $2, e[$1], $3, v[$1] }' \
      "$run/err-0" "$run/err-$every" >"$run/pairs"
    if awk '$3 != $4 { bad = 1 } END { exit !bad }' "$run/pairs"; then
      echo "island_benefit: $obj interval $every: evaluations differ between the modes" >&2
      status=1
    fi
    n=$(wc -l <"$run/pairs")
    wins=$(awk '$1 < $2 { w++ } END { print w + 0 }' "$run/pairs")
    printf "%-11s %8s %5s %17s %16s %6s %11s\n" "$obj" "$every" "$n" \
      "$(cut -d' ' -f1 "$run/pairs" | median)" "$(cut -d' ' -f2 "$run/pairs" | median)" \
      "$wins/$n" "$(head -1 "$run/pairs" | cut -d' ' -f3)"
  done
done
exit "$status"
