#!/bin/bash
# One session on the GPU machine: build with the gpu preset, run the
# gpu-labelled tests and the benchmark. Logs and CSV under $OUT (or ./out).
# Usage (from the checkout root): bash bench/gpu_session.sh [tests|bench|e2e|two|cec|check|all] [args...]
# (e2e: bench/e2e.sh, the wall, in-run and kernel-only times of the configs;
# two: bench/two_gpus.sh, 1 rank x 32 islands against 2 ranks x 32 on two GPUs;
# cec: the suite's values on the GPU, its evaluation speed (bench_gpu --cec)
# and bench/cec2017.sh with the arguments given, e.g. --dim 30 --runs 11
# --iterations T --set run.backend=\"gpu\"; check: within one device call,
# the gpu tests named by IPSO_CTEST_ARGS (default: the backend, speculative
# and invariant tests), bench_gpu, the cold and warm kernel load of the
# 30-D float workload (--timings, empty cache) and bench/e2e.sh --runs 3)
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
if [ "$what" = check ]; then
  (cd build-gpu && timeout 300 ctest ${IPSO_CTEST_ARGS:--R "test_gpu_backend|test_gpu_spec|gpu_invariants"} \
    -j3 --output-on-failure --timeout 280) >"$out/gpu-tests.log" 2>&1 || status=1
  grep -E "FAIL|tests passed|Test +#|differ" "$out/gpu-tests.log" | tail -30
  timeout 200 build-gpu/bench_gpu --reps 5 --csv "$out/bench.csv" >"$out/bench.log" 2>&1 || status=1
  grep -E "device:|cubic-1d-2048 +queue_lock +strict |cubic-1d-65536 +queue_lock +relaxed |cubic-120d-131072 +queue_lock +strict |rastrigin-30d-65536-float +queue_lock +strict |islands" "$out/bench.log" | head -24
  for c in cold warm; do
    [ $c = cold ] && rm -rf /tmp/ipso-cold
    IPSO_CACHE_DIR=/tmp/ipso-cold CUDA_CACHE_DISABLE=1 build-gpu/islandpso configs/rastrigin_30d_float.toml \
      --timings --set 'run.output=""' --set 'output.checkpoint=""' 2>&1 | grep -E "GPU kernels" | sed "s/^/$c: /"
  done
  timeout 150 bash bench/e2e.sh --bin build-gpu --runs 3 2>"$out/e2e.err" | tee "$out/e2e.md" | tail -12 || status=1
fi
if [ "$what" = e2e ] || [ "$what" = all ]; then
  bash bench/e2e.sh --bin build-gpu --runs "${IPSO_E2E_RUNS:-5}" 2>"$out/e2e.err" | tee "$out/e2e.md" || status=1
fi
exit $status
