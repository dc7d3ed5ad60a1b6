#!/bin/bash
# Builds the asan preset (AddressSanitizer + UndefinedBehaviorSanitizer,
# CPU-only, build-asan/) and runs the whole CPU test suite under it, with
# LeakSanitizer's suppressions for third-party libraries (tests/lsan.supp).
# Not part of the default ctest run; exit status is ctest's.
#
# Usage: tests/faults/run_asan_suite.sh [CTEST ARGS...]   e.g. -L unit, -R faults_
# Environment: JOBS (parallel build and test jobs, default 2).
set -u

src=$(cd "$(dirname "$0")/../.." && pwd)
jobs=${JOBS:-2}
cd "$src" || exit 1

cmake --preset asan >/dev/null || { echo "run_asan_suite: configuring the asan preset failed"; exit 1; }
cmake --build --preset asan -j "$jobs" >/dev/null ||
  { echo "run_asan_suite: building the asan preset failed"; exit 1; }

# fast_unwind_on_malloc=0: full allocation stacks through libraries built
# without frame pointers, so that the suppressions can see libmpi & co. on
# them; Open MPI's components stay loaded so that their frames have names.
# intercept_tls_get_addr=0: GCC 12's LeakSanitizer otherwise crashes
# ("Tracer caught signal 11") scanning a stale dynamic-TLS range when
# islandpso exits early (a config path that is a directory or empty).
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:fast_unwind_on_malloc=0:intercept_tls_get_addr=0
export LSAN_OPTIONS=suppressions=$src/tests/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export OMPI_MCA_mca_base_component_disable_dlclose=1

# Not --preset: its environment would replace the options above. The
# history-overhead test times runs against each other, which means nothing
# under the sanitizers (and takes longer than its limit): left out.
ctest --test-dir "$src/build-asan" --output-on-failure -j "$jobs" -E '^hdf5_e2e_history_overhead$' "$@"
