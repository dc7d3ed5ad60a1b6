#!/bin/bash
# The GPU driver's start and end under the settings that change them:
# CUDA_DEVICE_MAX_CONNECTIONS (the hardware queues a context makes; the
# driver's default is 8, islandpso sets 2 where it is not set) and, on a
# node of several GPUs, CUDA_VISIBLE_DEVICES (cuInit starts every visible
# GPU). RUNS runs of build-gpu/cuda_context per setting, interleaved.
#
#   bash bench/cuda_context.sh [--bin DIR] [--runs N]
set -uo pipefail
bindir=build-gpu
runs=3
while [ $# -gt 0 ]; do
  case $1 in
  --bin) bindir=$2; shift ;;
  --runs) runs=$2; shift ;;
  *) echo "usage: bench/cuda_context.sh [--bin DIR] [--runs N]" >&2; exit 2 ;;
  esac
  shift
done
probe=$bindir/cuda_context
[ -x "$probe" ] || { echo "cuda_context: no $probe (build the gpu preset)" >&2; exit 2; }
settings=("CUDA_DEVICE_MAX_CONNECTIONS=8" "CUDA_DEVICE_MAX_CONNECTIONS=4"
  "CUDA_DEVICE_MAX_CONNECTIONS=2" "CUDA_DEVICE_MAX_CONNECTIONS=1")
gpus=$(nvidia-smi -L 2>/dev/null | wc -l)
[ "$gpus" -gt 1 ] && settings+=("CUDA_VISIBLE_DEVICES=0 CUDA_DEVICE_MAX_CONNECTIONS=8")
for ((i = 0; i < runs; i++)); do
  for s in "${settings[@]}"; do
    # shellcheck disable=SC2086
    printf '%-56s %s\n' "$s" "$(env $s "$probe")"
  done
done
