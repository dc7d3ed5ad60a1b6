#!/bin/bash
# Builds the config-reader fuzzer with clang (libFuzzer, AddressSanitizer,
# UndefinedBehaviorSanitizer) straight from the reader's sources, then runs
# it for a CI-sized time on a scratch copy of the seed corpus. Fails on any
# crash, leak, undefined behaviour, broken promise of an accepted config,
# timeout or excess memory; skips (77) where clang or libFuzzer is missing.
# The project's own build (gcc) is not involved.
#
# Usage: run_fuzz.sh [SECONDS]      (default $IPSO_FUZZ_SECONDS or 120)
# Environment: IPSO_SOURCE_DIR (the source tree; default: two levels up),
#   IPSO_FUZZ_BUILD (build and scratch directory; default ./fuzz-build),
#   IPSO_FUZZ_CXX / IPSO_FUZZ_CC (compilers; default clang++ / clang),
#   IPSO_FUZZ_BINARY (a fuzzer already built, by -DIPSO_FUZZ=ON: no build here).
set -u

here=$(cd "$(dirname "$0")" && pwd)
src=${IPSO_SOURCE_DIR:-$(cd "$here/../.." && pwd)}
seconds=${1:-${IPSO_FUZZ_SECONDS:-120}}
build=${IPSO_FUZZ_BUILD:-$PWD/fuzz-build}
cxx=${IPSO_FUZZ_CXX:-}
cc=${IPSO_FUZZ_CC:-}

# build_fuzzer: compiles $fuzzer; 77 (skip) without a usable clang and libFuzzer.
build_fuzzer() {
  # The clang pair to use: the given one, else clang/clang++, else the newest clang-N.
  if [[ -z "$cxx" ]]; then
    for c in clang++ $(compgen -c clang++- | sort -t- -k2 -rn | uniq); do
      if command -v "$c" >/dev/null; then cxx=$c; break; fi
    done
  fi
  if [[ -z "$cxx" ]]; then
    echo "run_fuzz: SKIP: no clang++ (tools/setup.sh installs clang)"
    return 77
  fi
  [[ -n "$cc" ]] || cc=${cxx/clang++/clang}
  command -v "$cc" >/dev/null || { echo "run_fuzz: SKIP: no $cc next to $cxx"; return 77; }

  san=(-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)

  # libFuzzer ships in clang's runtime package (libclang-rt-N-dev on Debian 12).
  printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
    'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; return (int)(n & 0); }' \
    >"$build/probe.c"
  if ! "$cc" -fsanitize=fuzzer,address,undefined "$build/probe.c" -o "$build/probe" \
    >"$build/probe.log" 2>&1; then
    echo "run_fuzz: SKIP: $cc cannot link -fsanitize=fuzzer,address,undefined (libFuzzer or the"
    echo "  sanitizer runtimes are missing; on Debian: libclang-rt-N-dev, N = clang's major version):"
    sed 's/^/  | /' "$build/probe.log" | head -n 5
    return 77
  fi
  if [[ ! -f /usr/include/toml++/toml.h && ! -f /usr/local/include/toml++/toml.h ]]; then
    echo "run_fuzz: SKIP: toml++ headers not found (libtomlplusplus-dev)"
    return 77
  fi

  # The reader and what it calls; toml++ header-only, so that the parser is
  # instrumented too and guides the fuzzer. Its internal debug assertions are
  # compiled out as in the distribution's library: toml++ 3.3.0 asserts on
  # headers such as "[~a]" (marzer/tomlplusplus#301) where its release build
  # reports a parse error, which is the behaviour islandpso ships with.
  echo "run_fuzz: building with $("$cxx" --version | head -n 1)"
  inc=(-I"$src/src/base" -I"$src/src/problem" -I"$src/io/config")
  common=(-g -O1 "${san[@]}" -fsanitize=fuzzer-no-link "${inc[@]}" -ffp-contract=off)
  objs=()
  for f in src/problem/objective.c src/base/log.c; do
    o=$build/$(basename "$f" .c).o
    "$cc" -std=gnu11 "${common[@]}" -c "$src/$f" -o "$o" ||
      { echo "run_fuzz: FAIL: cannot compile $f"; return 1; }
    objs+=("$o")
  done
  for f in io/config/config.cpp io/config/config_keys.cpp io/config/config_text.cpp \
    io/config/config_validate.cpp tests/fuzz/fuzz_config.cpp; do
    o=$build/$(basename "$f" .cpp).o
    "$cxx" -std=c++17 -DTOML_HEADER_ONLY=1 '-DTOML_ASSERT(expr)=static_assert(true)' "${common[@]}" \
      -fsanitize-ignorelist="$here/toml_ignorelist.txt" -c "$src/$f" -o "$o" ||
      { echo "run_fuzz: FAIL: cannot compile $f"; return 1; }
    objs+=("$o")
  done
  "$cxx" -fsanitize=fuzzer "${san[@]}" "${objs[@]}" -lm -o "$fuzzer" ||
    { echo "run_fuzz: FAIL: cannot link the fuzzer"; return 1; }
}

mkdir -p "$build" && build=$(cd "$build" && pwd) || exit 1
fuzzer=${IPSO_FUZZ_BINARY:-}
if [[ -n "$fuzzer" ]]; then
  [[ -x "$fuzzer" ]] || { echo "run_fuzz: FAIL: IPSO_FUZZ_BINARY '$fuzzer' is no program"; exit 1; }
  echo "run_fuzz: using $fuzzer"
else
  fuzzer=$build/fuzz_config
  build_fuzzer || exit $?
fi

# A scratch corpus: the kept seeds, every config of the project and the
# bad-input corpora. New inputs go here, never into the source tree.
corpus=$build/corpus
rm -rf "$corpus" "$build"/crash-* "$build"/leak-* "$build"/timeout-* "$build"/oom-* "$build"/slow-unit-*
mkdir -p "$corpus"
n=0
for f in "$here"/corpus/* "$src"/configs/*.toml "$src"/configs/*/*.toml \
  "$src"/tests/config/good/*.toml "$src"/tests/config/bad/*.toml "$src"/tests/faults/bad_inputs/*.toml; do
  [[ -f "$f" ]] || continue
  n=$((n + 1))
  cp "$f" "$corpus/seed_$n"
done
echo "run_fuzz: $n seed inputs, running for $seconds s"

# The reader resolves relative paths (objective.source) against the working directory.
cd "$build" || exit 1
log=$build/fuzz.log
# libFuzzer's own failure status is 77, CTest's "skipped": make it 1.
"$fuzzer" "$corpus" -dict="$here/config.dict" -max_total_time="$seconds" -timeout=10 \
  -rss_limit_mb=2048 -malloc_limit_mb=1024 -max_len=8192 -close_fd_mask=2 -error_exitcode=1 \
  -timeout_exitcode=1 -print_final_stats=1 -artifact_prefix="$build/" >"$log" 2>&1
rc=$?

execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+/[0-9a-zA-Z]+' "$log" | tail -n 1)
echo "run_fuzz: ${execs:-?} executions; ${cov:-no coverage line}; exit status $rc"

artifacts=("$build"/crash-* "$build"/leak-* "$build"/timeout-* "$build"/oom-*)
found=()
for a in "${artifacts[@]}"; do [[ -f "$a" ]] && found+=("$a"); done
if ((rc != 0 || ${#found[@]} > 0)); then
  echo "run_fuzz: FAIL"
  grep -E "ERROR|SUMMARY|runtime error|deadly|breaks a promise|==[0-9]+==" "$log" | head -n 20
  for a in "${found[@]}"; do
    echo "--- $a, replayed, then its first bytes:"
    "$fuzzer" "$a" 2>&1 | grep -E "breaks a promise|ERROR|runtime error|SUMMARY" | head -n 5
    od -c "$a" | head -n 12
  done
  exit 1
fi
echo "run_fuzz: passed: no crash, leak, undefined behaviour, broken promise or hang"
