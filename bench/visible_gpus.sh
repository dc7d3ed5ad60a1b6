#!/bin/bash
# Start-up on a node of several GPUs, with each process's driver seeing only
# its own GPU and with every GPU visible: a one-iteration run without
# output as one process (islandpso narrows CUDA_VISIBLE_DEVICES itself,
# src/gpu_visible.h; IPSO_GPU_MASK=0 leaves all visible) and as one rank
# per GPU under mpirun (all visible, islandpso's default for ranks sharing
# a node; or CUDA_VISIBLE_DEVICES set to the local rank by a wrapper); the
# wall time of the whole process (or of mpirun) and rank 0's `--timings`
# marks (the GPU driver, the context, the first iteration's start); and
# `mpirun true`, the launcher alone. Medians of RUNS runs after a warm-up,
# the settings interleaved.
#
#   bash bench/visible_gpus.sh [--bin DIR] [--runs N]
#
# DIR holds islandpso (default build-gpu). Markdown on stdout.
set -uo pipefail
runs=5
bindir=build-gpu
while [ $# -gt 0 ]; do
  case $1 in
  --runs) runs=$2; shift ;;
  --bin) bindir=$2; shift ;;
  *) echo "usage: bench/visible_gpus.sh [--bin DIR] [--runs N]" >&2; exit 2 ;;
  esac
  shift
done
src=$(cd "$(dirname "$0")/.." && pwd)
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
if [ "$ngpu" -lt 2 ]; then
  echo "visible_gpus: $ngpu GPU(s); a node of several is needed" >&2
  exit 2
fi
# shellcheck source=bench/run_lib.sh
. "$src/bench/run_lib.sh"
bench_scratch "$bindir"
mpi=(mpirun --bind-to none -np "$ngpu")
[ "$(id -u)" = 0 ] && mpi+=(--allow-run-as-root)
one=("$src/configs/rastrigin_30d_float.toml" --backend gpu --overwrite --timings
  --set run.max_iterations=1 --set 'run.output=""' --set 'output.checkpoint=""')


# one KEY COMMAND...: runs it once; appends "WALL DRIVER CONTEXT FIRST" to KEY.txt.
one() {
  local key=$1 t0 t1
  shift
  t0=$(now)
  "$@" >out.log 2>&1 || { echo "visible_gpus: $* failed:" >&2; tail -5 out.log >&2; }
  t1=$(now)
  awk -v a="$t0" -v b="$t1" '
    /GPU driver \(cuInit/ {d = $(NF-4)}
    /GPU context/ {c = $(NF-4)}
    /swarm initialised/ {f = $(NF-1)}
    END {printf "%.4f %s %s %s\n", b - a, d == "" ? "nan" : d, c == "" ? "nan" : c, f == "" ? "nan" : f}' out.log >>"$key.txt"
}

echo "visible_gpus: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1) x$ngpu, $(mpirun --version 2>/dev/null | head -1)"
echo
one warm "$bin/islandpso" "${one[@]}"
one warm "${mpi[@]}" "$bin/islandpso" "${one[@]}"
rm -f ./*.txt
for _ in $(seq "$runs"); do
  one launcher "${mpi[@]}" true
  one p1-own "$bin/islandpso" "${one[@]}"
  one p1-all env IPSO_GPU_MASK=0 "$bin/islandpso" "${one[@]}"
  # shellcheck disable=SC2016
  one pn-own "${mpi[@]}" bash -c 'CUDA_VISIBLE_DEVICES=$OMPI_COMM_WORLD_LOCAL_RANK exec "$0" "$@"' \
    "$bin/islandpso" "${one[@]}"
  one pn-all "${mpi[@]}" "$bin/islandpso" "${one[@]}"
done
col() { awk -v c="$2" '{print $c}' "$1.txt" | median; }
echo "| run | GPUs each process sees | wall | GPU driver (cuInit) | GPU context | first iteration at |"
echo "|---|---|---:|---:|---:|---:|"
row() { printf "| %s | %s | %s s | %s s | %s s | %s s |\n" "$2" "$3" "$(col "$1" 1)" "$(col "$1" 2)" "$(col "$1" 3)" "$(col "$1" 4)"; }
row p1-own "1 process" "its own (the default)"
row p1-all "1 process" "all $ngpu (IPSO_GPU_MASK=0)"
row pn-own "$ngpu ranks, mpirun" "its own (CUDA_VISIBLE_DEVICES=local rank)"
row pn-all "$ngpu ranks, mpirun" "all $ngpu (the default)"
printf "| \`mpirun -np %s true\` (the launcher alone) | | %s s | | | |\n" "$ngpu" "$(col launcher 1)"
