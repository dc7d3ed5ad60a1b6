#!/bin/bash
# Islands on two GPUs (issue: an archipelago on every GPU, point 5): 64
# islands x 1,024 particles of 30-D Rastrigin in float (the global-best
# swarm of configs/rastrigin_30d_float.toml), strict.
#
# 1. The same result: 1 rank x 64 islands on one GPU against 2 ranks x 32
#    islands on two GPUs, migration every 10 iterations (best/worst, the
#    random policies with migration.probability, and best/worst with
#    migration.lead = 5), HDF5 output compared value for value
#    (tests/lib/h5compare.py).
# 2. The time: in-run time per iteration (the summary's `time` / iterations,
#    median of --runs runs after a warm-up, checkpoints off) of 1 rank x 32
#    islands on GPU 0 and on GPU 1 (two GPUs of one kind differ a little:
#    a run of two ranks goes at the slower one's pace), 2 ranks x 32
#    islands (two GPUs) and 1 rank x 64 islands (GPU 0), with migration
#    off, every 100 and every 10, and every 10 without the output file (the
#    run's history and migration log, written at its end, then take no
#    part in the time); every 10 with migration.lead = 5 (the messages
#    posted 5 iterations before each migration, so that the GPUs do not
#    wait for each other's), with and without the output file.
# 3. Two processes of 1 rank x 32 at once, one on each GPU, with no MPI
#    between them (each its own run): what running both GPUs of the
#    machine costs a rank by itself (the slower one's in-run time against
#    1 x 32 on GPU 0 alone), without migration and every 10 iterations,
#    without the output file.
# 4. Where a 2 x 32 run's migrations went on the GPUs: the handshake's
#    stamps of one run (--timings), without and with the lead.
# 5. What one rank pays for being one of two, without migration and
#    without the output file: 1 x 32 on GPU 0 as a process alone (its
#    driver sees GPU 0 only), seeing both GPUs (IPSO_GPU_MASK=0, as the two
#    ranks do), and as the one rank of `mpirun -np 1`, against 2 x 32 (each
#    rank seeing both GPUs, the default, and only its own: IPSO_GPU_MASK=1).
#
# 6. Issue 15's point 5 by itself (--only point5): 2 x 32 against 1 x 32
#    (GPU 0, GPU 1) every 10 iterations without the output file, lead 0 and
#    5, as planned and with programmatic dependent launch forced
#    (IPSO_GPU_PDL=1, as the plan chose it before 32 islands went without).
#
#   bash bench/two_gpus.sh [--runs N] [--bin DIR] [--iterations N] [--only ranks|point5]
#
# --only ranks: section 5 alone; --only point5: section 6 alone.
#
# DIR holds islandpso (default build-gpu). Markdown on stdout.
set -uo pipefail
runs=5
bindir=build-gpu
iterations=2000
only=
while [ $# -gt 0 ]; do
  case $1 in
  --runs) runs=$2; shift ;;
  --bin) bindir=$2; shift ;;
  --iterations) iterations=$2; shift ;;
  --only) only=$2; shift ;;
  *) echo "usage: bench/two_gpus.sh [--runs N] [--bin DIR] [--iterations N] [--only ranks|point5]" >&2; exit 2 ;;
  esac
  shift
done
src=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/run_lib.sh
. "$src/bench/run_lib.sh"
bench_scratch "$bindir"
ngpu=$(nvidia-smi -L | wc -l)
if [ "$ngpu" -lt 2 ]; then
  echo "two_gpus: $ngpu GPU(s) visible; two are needed" >&2
  exit 77
fi
echo "two_gpus: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1) x$ngpu"
mpi=(mpirun --bind-to none --oversubscribe)
[ "$(id -u)" -ne 0 ] || mpi+=(--allow-run-as-root)
config=$src/configs/rastrigin_30d_float.toml
common=(--backend gpu --overwrite --set swarm.particles=1024 --set 'output.checkpoint=""')

# ratio_rows BASE 'LABEL|SECONDS'...: a table row for each run, its
# in-run time per iteration and its ratio to BASE seconds.
ratio_rows() {
  local base=$1 e r
  shift
  for e in "$@"; do
    r=${e#*|}
    printf "| %s | %s | %s |\n" "${e%%|*}" \
      "$(awk -v r="$r" -v n="$iterations" 'BEGIN {printf "%.2f us", r / n * 1e6}')" \
      "$(awk -v a="$r" -v b="$base" 'BEGIN {printf "%.3f", a / b}')"
  done
}

# inrun_of ISLANDS LAUNCHER...: the median in-run time of the caller's
# ARGS with ISLANDS islands, launched by LAUNCHER.
inrun_of() {
  local n=$1
  shift
  launch=("$@")
  run_medians "${args[@]}" --set run.islands="$n" | awk '{print $2}'
}

# ranks_section: section 5.
ranks_section() {
  echo
  echo "## One rank of two: 1 x 32 without migration and output ($iterations iterations, medians of $runs)"
  echo
  local args=("$config" "${common[@]}" --set run.max_iterations="$iterations" --set migration.interval=0
    --set 'run.output=""')
  local alone both np1 two own
  alone=$(inrun_of 32 env CUDA_VISIBLE_DEVICES=0)
  both=$(inrun_of 32 env CUDA_VISIBLE_DEVICES=0,1 IPSO_GPU_MASK=0)
  np1=$(inrun_of 32 "${mpi[@]}" -np 1)
  two=$(inrun_of 64 "${mpi[@]}" -np 2)
  own=$(inrun_of 64 "${mpi[@]}" -np 2 -x IPSO_GPU_MASK=1)
  echo "| run | in-run per iteration | against the process alone |"
  echo "|---|---:|---:|"
  ratio_rows "$alone" "1 x 32, a process alone (sees GPU 0)|$alone" \
    "1 x 32, a process seeing both GPUs|$both" "1 x 32, mpirun -np 1|$np1" \
    "2 x 32, mpirun -np 2|$two" \
    "2 x 32, mpirun -np 2, each rank seeing its own GPU (IPSO_GPU_MASK=1)|$own"
  echo
  echo "Every 10 iterations with migration.lead = 5, no output file:"
  echo
  args=("$config" "${common[@]}" --set run.max_iterations="$iterations" --set migration.interval=10
    --set migration.lead=5 --set 'run.output=""')
  alone=$(inrun_of 32 env CUDA_VISIBLE_DEVICES=0)
  two=$(inrun_of 64 "${mpi[@]}" -np 2)
  own=$(inrun_of 64 "${mpi[@]}" -np 2 -x IPSO_GPU_MASK=1)
  echo "| run | in-run per iteration | against 1 x 32 alone |"
  echo "|---|---:|---:|"
  ratio_rows "$alone" "1 x 32, a process alone|$alone" "2 x 32, mpirun -np 2|$two" \
    "2 x 32, mpirun -np 2, IPSO_GPU_MASK=1|$own"
}

# point5_section: section 6.
point5_section() {
  echo
  echo "## 2 x 32 against 1 x 32, every 10, no output file ($iterations iterations, medians of $runs)"
  echo
  echo "| run | 1 x 32 (GPU 0) | 1 x 32 (GPU 1) | 2 x 32 | 2 x 32 / 1 x 32 (GPU 0) | 2 x 32 / 1 x 32 (the slower GPU) |"
  echo "|---|---:|---:|---:|---:|---:|"
  local row lead var r0 r1 r2 args
  for row in plan-0 plan-5 IPSO_GPU_PDL=1-0 IPSO_GPU_PDL=1-5; do
    lead=${row##*-}
    var=${row%-*}
    args=("$config" "${common[@]}" --set run.max_iterations="$iterations" --set migration.interval=10
      --set migration.lead="$lead" --set 'run.output=""')
    local env1=() envx=()
    [ "$var" = plan ] || env1=("$var") envx=(-x "$var")
    r0=$(inrun_of 32 env CUDA_VISIBLE_DEVICES=0 "${env1[@]}")
    r1=$(inrun_of 32 env CUDA_VISIBLE_DEVICES=1 "${env1[@]}")
    r2=$(inrun_of 64 "${mpi[@]}" -np 2 "${envx[@]}")
    us() { awk -v r="$1" -v n="$iterations" 'BEGIN {printf "%.2f us", r / n * 1e6}'; }
    printf "| %s, lead %s | %s | %s | %s | %s | %s |\n" "$([ "$var" = plan ] && echo "as planned" || echo "$var")" \
      "$lead" "$(us "$r0")" "$(us "$r1")" "$(us "$r2")" \
      "$(awk -v a="$r2" -v b="$r0" 'BEGIN {printf "%.3f", a / b}')" \
      "$(awk -v a="$r2" -v b="$r0" -v c="$r1" 'BEGIN {printf "%.3f", a / (b > c ? b : c)}')"
  done
}
if [ "$only" = ranks ]; then
  ranks_section
  exit 0
fi
if [ "$only" = point5 ]; then
  point5_section
  exit 0
fi

echo
echo "## Same result: 1 rank x 64 islands (one GPU) and 2 ranks x 32 (two GPUs)"
echo
status=0
for policy in best random lead; do
  extra=(--set migration.interval=10 --set run.max_iterations=500 --set output.snapshot_interval=250)
  [ "$policy" = lead ] && extra+=(--set migration.lead=5)
  [ "$policy" = random ] && extra+=(--set 'migration.select="random"' \
    --set 'migration.policy="replace_random"' --set migration.probability=0.7 \
    --set migration.topology='"bidirectional_ring"' --set migration.migrants=3)
  mkdir -p "one-$policy" "two-$policy"
  (cd "one-$policy" && CUDA_VISIBLE_DEVICES=0 "$bin/islandpso" "$config" "${common[@]}" \
    --set run.islands=64 "${extra[@]}" >run.log 2>&1) || { echo "1 x 64 ($policy) failed"; tail -5 "one-$policy/run.log"; status=1; }
  (cd "two-$policy" && "${mpi[@]}" -np 2 "$bin/islandpso" "$config" "${common[@]}" \
    --set run.islands=64 "${extra[@]}" >run.log 2>&1) || { echo "2 x 32 ($policy) failed"; tail -5 "two-$policy/run.log"; status=1; }
  grep -E "island (0|32) \(rank" "two-$policy/run.log" | sed 's/^/    /'
  if python3 "$src/tests/lib/h5compare.py" "one-$policy/rastrigin_30d_float.h5" \
    "two-$policy/rastrigin_30d_float.h5" >cmp.txt 2>&1; then
    echo "- $policy migration: identical files ($(grep -E 'best fitness' "one-$policy/run.log" | sed 's/^ *//'))"
  else
    echo "- $policy migration: FILES DIFFER"
    head -20 cmp.txt
    status=1
  fi
done

echo
echo "## Time per iteration ($iterations iterations, medians of $runs runs, in-run time)"
echo
echo "| migration | 1 rank x 32 (GPU 0) | 1 rank x 32 (GPU 1) | 2 ranks x 32 (2 GPUs) | 2 x 32 / 1 x 32 (GPU 0) | 2 x 32 / 1 x 32 (the slower GPU) | 1 rank x 64 (GPU 0) | 2 x 32 / (1 x 64 / 2) |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
for row in 0 0-none 100 10 10-none 10-lead 10-lead-none; do
  interval=${row%%-*}
  args=("$config" "${common[@]}" --set run.max_iterations="$iterations" --set migration.interval=$interval)
  case $row in *lead*) args+=(--set migration.lead=5) ;; esac
  case $row in *none) args+=(--set 'run.output=""') ;; esac
  launch=(env CUDA_VISIBLE_DEVICES=0)
  read -r _ r1 < <(run_medians "${args[@]}" --set run.islands=32)
  read -r _ r64 < <(run_medians "${args[@]}" --set run.islands=64)
  launch=(env CUDA_VISIBLE_DEVICES=1)
  read -r _ r1b < <(run_medians "${args[@]}" --set run.islands=32)
  launch=("${mpi[@]}" -np 2)
  read -r _ r2 < <(run_medians "${args[@]}" --set run.islands=64)
  label=$([ "$interval" = 0 ] && echo "off" || echo "every $interval")
  case $row in *lead*) label="$label, lead 5" ;; esac
  case $row in *none) label="$label, no output file" ;; esac
  us() { awk -v r="$1" -v n="$iterations" 'BEGIN {printf "%.2f us", r / n * 1e6}'; }
  printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n" "$label" "$(us "$r1")" "$(us "$r1b")" \
    "$(us "$r2")" "$(awk -v a="$r2" -v b="$r1" 'BEGIN {printf "%.3f", a / b}')" \
    "$(awk -v a="$r2" -v b="$r1" -v c="$r1b" 'BEGIN {printf "%.3f", a / (b > c ? b : c)}')" \
    "$(us "$r64")" "$(awk -v a="$r2" -v b="$r64" 'BEGIN {printf "%.3f", a / (b / 2)}')"
done

echo
echo "## Two processes of 1 rank x 32 at once, GPUs 0 and 1, no output file (medians of $runs)"
echo
# pair_one ARGS...: both processes at once; prints the slower one's in-run time.
pair_one() {
  mkdir -p p0 p1
  (cd p0 && CUDA_VISIBLE_DEVICES=0 "$bin/islandpso" "$@" >out.log 2>&1) &
  (cd p1 && CUDA_VISIBLE_DEVICES=1 "$bin/islandpso" "$@" >out.log 2>&1) &
  wait
  cat p0/out.log p1/out.log | awk '/^ *time +[0-9.]+ s/ {if ($2 > m) m = $2} END {print m + 0}'
}
echo "| migration | 1 x 32 alone (GPU 0) | both at once (the slower) | at once / alone |"
echo "|---|---:|---:|---:|"
for interval in 0 10; do
  args=("$config" "${common[@]}" --set run.max_iterations="$iterations" --set migration.interval=$interval
    --set run.islands=32 --set 'run.output=""')
  launch=(env CUDA_VISIBLE_DEVICES=0)
  read -r _ alone < <(run_medians "${args[@]}")
  pair_one "${args[@]}" >/dev/null
  both=$(for _ in $(seq "$runs"); do pair_one "${args[@]}"; done | median)
  label=$([ "$interval" = 0 ] && echo "off" || echo "every $interval")
  us() { awk -v r="$1" -v n="$iterations" 'BEGIN {printf "%.2f us", r / n * 1e6}'; }
  printf "| %s | %s | %s | %s |\n" "$label" "$(us "$alone")" "$(us "$both")" \
    "$(awk -v a="$both" -v b="$alone" 'BEGIN {printf "%.3f", a / b}')"
done

echo
echo "## The handshake on the GPUs (2 ranks x 32, every 10, \`--timings\`)"
launch=("${mpi[@]}" -np 2)
for lead in 0 5; do
  echo
  echo "migration.lead = $lead:"
  echo
  "${launch[@]}" "$bin/islandpso" "$config" "${common[@]}" --set run.max_iterations="$iterations" \
    --set migration.interval=10 --set migration.lead=$lead --set run.islands=64 --timings 2>&1 |
    sed -n '/handshake on the GPUs/,/^islandpso: finished/p' | grep -v "^islandpso: finished" | sed 's/^/    /'
done
ranks_section
exit $status
