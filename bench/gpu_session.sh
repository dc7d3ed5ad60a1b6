#!/bin/bash
# One session on the GPU machine: build with the gpu preset, run the
# gpu-labelled tests and the benchmark. Logs and CSV under $OUT (or ./out).
# Usage (from the checkout root): bash bench/gpu_session.sh [tests|bench|e2e|two|cec|all] [args...]
# (e2e: bench/e2e.sh, the wall, in-run and kernel-only times of the configs;
# two: bench/two_gpus.sh, 1 rank x 32 islands against 2 ranks x 32 on two GPUs;
# cec: the suite's values on the GPU, its evaluation speed (bench_gpu --cec)
# and bench/cec2017.sh with the arguments given, e.g. --dim 30 --runs 11
# --iterations T --set run.backend=\"gpu\")
set -uo pipefail
what=${1:-all}
shift || true
out=${OUT:-out}
mkdir -p "$out"
[ -f .device/setup.sh ] && . .device/setup.sh
export IPSO_CACHE_DIR=${IPSO_CACHE_DIR:-/tmp/ipso-cache}
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv
if ! { cmake --preset gpu >"$out/cmake.log" 2>&1 && cmake --build --preset gpu -j "$(nproc)" >"$out/build.log" 2>&1; }; then
  tail -40 "$out/cmake.log" "$out/build.log"
  exit 1
fi
status=0
if [ "$what" = tests ] || [ "$what" = all ]; then
  (cd build-gpu && ctest -L gpu -V --timeout 1200 ${IPSO_CTEST_ARGS:-}) >"$out/gpu-tests.log" 2>&1 || status=1
  grep -E "FAIL|tests passed|Test +#|p=|GPU vs CPU|runs (passed|clean)|draws" "$out/gpu-tests.log" | tail -60
fi
if [ "$what" = bench ] || [ "$what" = all ]; then
  build-gpu/bench_gpu --csv "$out/bench.csv" "$@" 2>&1 | tee "$out/bench.log" || status=1
fi
if [ "$what" = two ]; then
  bash bench/two_gpus.sh --bin build-gpu --runs "${IPSO_E2E_RUNS:-5}" "$@" 2>"$out/two.err" | tee "$out/two.md" || status=1
fi
if [ "$what" = cec ]; then
  (cd build-gpu && ctest -R gpu_cec2017_values --output-on-failure) >"$out/cec-values.log" 2>&1 || status=1
  tail -3 "$out/cec-values.log"
  build-gpu/bench_gpu --cec --reps 3 --csv "$out/cec-speed.csv" 2>&1 | tee "$out/cec-speed.log" || status=1
  [ $# -gt 0 ] && { bash bench/cec2017.sh --bin build-gpu --csv "$out/cec-runs.csv" "$@" | tee "$out/cec.md" || status=1; }
fi
if [ "$what" = e2e ] || [ "$what" = all ]; then
  bash bench/e2e.sh --bin build-gpu --runs "${IPSO_E2E_RUNS:-5}" 2>"$out/e2e.err" | tee "$out/e2e.md" || status=1
fi
exit $status
