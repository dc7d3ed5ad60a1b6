#!/bin/bash
# Runs islandpso for real (no --dry-run) on every bad input of the given
# corpus directories and checks that each is refused with exit status 2 and
# the expected message before anything is written or a backend is created.
#
# Usage: run_bad_inputs.sh [DIR...]   (default: tests/config/bad and
#                                      tests/faults/bad_inputs)
#
# Each case is one .toml file whose leading comment block holds:
#   # expect: TEXT       stderr must contain TEXT (required)
#   # count: N           ... exactly N times (e.g. once from 4 ranks)
#   # set: KEY=VALUE     passed as --set KEY=VALUE (repeatable)
#   # set-repeat: N KV   passed as N times --set KV
#   # args: WORDS        more command-line words (split on blanks)
#   # ranks: N           run under $MPIEXEC with N ranks
#   # setup: COMMAND     bash command run first in the case's empty directory
#   # config: PATH       the config argument instead of the case file itself
# In expect, args and config, @CONFIG@ stands for the case file, @WORK@ for
# the case's directory and @EMPTY@ (a whole word) for an empty argument.
#
# For every case: exit status 2 within 60 s; the message; no runtime failure
# ("error: [rank"); no backend created (no "island 0:" line, no GPU notice);
# the case's directory exactly as the setup left it (names, types, sizes and
# contents), so no output, checkpoint or temporary file was touched.
#
# Cases run 4 at a time (IPSO_BAD_INPUT_JOBS): each mostly waits for MPI
# start-up. Environment (set by CTest): IPSO_BIN, MPIEXEC,
# MPIEXEC_NUMPROC_FLAG, IPSO_TEST_DIR.
set -u

here=$(cd "$(dirname "$0")" && pwd)
bin=${IPSO_BIN:-}
mpiexec=${MPIEXEC:-mpiexec}
npflag=${MPIEXEC_NUMPROC_FLAG:--n}
test_dir=${IPSO_TEST_DIR:-$(dirname "$here")}

if [[ -z "$bin" || ! -x "$bin" ]]; then
  echo "run_bad_inputs: IPSO_BIN ('$bin') is not an executable islandpso" >&2
  exit 1
fi
dirs=("$@")
((${#dirs[@]} > 0)) || dirs=("$test_dir/config/bad" "$here/bad_inputs")

logs=$(mktemp -d "${TMPDIR:-/tmp}/ipso_bad_inputs.XXXXXX") || exit 1
trap 'rm -rf "$logs"' EXIT

jobs=${IPSO_BAD_INPUT_JOBS:-4}

# snapshot DIR: every entry of DIR with its type, size and checksum.
# scaled SECONDS: a time bound times IPSO_TEST_TIME_SCALE (as tests/lib/common.sh).
scaled() { echo $(($1 * ${IPSO_TEST_TIME_SCALE:-1})); }

snapshot() {
  (cd "$1" && find . -mindepth 1 -printf '%P %y %s %l\n' | LC_ALL=C sort &&
    find . -type f -exec md5sum {} + | LC_ALL=C sort)
}

# subst WORD CASE WORK: WORD with the placeholders replaced.
subst() {
  local w=${1//@CONFIG@/$2}
  w=${w//@WORK@/$3}
  [[ "$w" == "@EMPTY@" ]] && w=""
  printf '%s' "$w"
}

# run_case FILE RESULT: runs one case and writes its verdict to RESULT
# (first line "ok" or "FAIL", then the details).
run_case() {
  local file=$1 result=$2 name header expect count ranks setup config work rc reason=""
  name=$(basename "$(dirname "$file")")/$(basename "$file" .toml)
  # The header is the leading comment block; NUL bytes of binary files are dropped.
  header=$(head -c 8192 "$file" | tr -d '\000' | awk '!/^#/ { exit } { print }')
  field() { sed -n "s/^# $1: //p" <<<"$header"; }
  expect=$(field expect | head -n 1)
  count=$(field count | head -n 1)
  ranks=$(field ranks | head -n 1)
  setup=$(field setup | head -n 1)
  config=$(field config | head -n 1)
  if [[ -z "$expect" ]]; then
    echo "FAIL  $name: no '# expect:' line" >"$result"
    return
  fi
  work=$(mktemp -d "$logs/case.XXXXXX")
  local tmp=$work.log
  mkdir "$tmp"
  expect=$(subst "$expect" "$file" "$work")
  local args=() word line n kv
  if [[ -n "$config" ]]; then args+=("$(subst "$config" "$file" "$work")"); else args+=("$file"); fi
  while IFS= read -r line; do
    [[ -n "$line" ]] && args+=(--set "$line")
  done < <(field set)
  while read -r n kv; do
    [[ -n "$n" ]] && for ((i = 0; i < n; i++)); do args+=(--set "$kv"); done
  done < <(field set-repeat)
  for word in $(field args); do args+=("$(subst "$word" "$file" "$work")"); done

  if [[ -n "$setup" ]] && ! (cd "$work" && bash -c "$setup") >"$tmp/setup" 2>&1; then
    {
      echo "FAIL  $name: setup failed: $setup"
      sed 's/^/      | /' "$tmp/setup" | head -n 5
    } >"$result"
    rm -rf "$work" "$tmp"
    return
  fi
  snapshot "$work" >"$tmp/before"

  local cmd=("$bin" "${args[@]}")
  ((${ranks:-1} > 1)) && cmd=("$mpiexec" "$npflag" "$ranks" "${cmd[@]}")
  (cd "$work" && timeout -k 5 "$(scaled 60)" "${cmd[@]}") >"$tmp/out" 2>"$tmp/err" </dev/null
  rc=$?
  snapshot "$work" >"$tmp/after"

  if ((rc == 124 || rc == 137)); then
    reason="no verdict within $(scaled 60) s (hung)"
  elif ((rc != 2)); then
    reason="exit status $rc, expected 2"
  elif ! grep -qF -- "$expect" "$tmp/err"; then
    reason="stderr lacks: $expect"
  elif [[ -n "$count" ]] && (($(grep -cF -- "$expect" "$tmp/err") != count)); then
    reason="message printed $(grep -cF -- "$expect" "$tmp/err") times, expected $count"
  elif grep -q "error: \[rank" "$tmp/err"; then
    reason="reported as a runtime failure, not as a usage error"
  elif grep -qE "^  island [0-9]+:|no GPU available" "$tmp/out"; then
    reason="a backend was created before the input was refused"
  elif ! cmp -s "$tmp/before" "$tmp/after"; then
    reason="files changed: $(diff "$tmp/before" "$tmp/after" | grep '^[<>]' | head -n 4 | tr '\n' ' ')"
  fi
  if [[ -z "$reason" ]]; then
    echo "ok    $name" >"$result"
  else
    {
      echo "FAIL  $name: $reason"
      sed 's/^/      | /' "$tmp/err" | head -n 12
    } >"$result"
  fi
  rm -rf "$work" "$tmp"
}

shopt -s nullglob
all=()
for dir in "${dirs[@]}"; do
  cases=("$dir"/*.toml)
  if ((${#cases[@]} == 0)); then
    echo "run_bad_inputs: no cases in $dir" >&2
    exit 1
  fi
  all+=("${cases[@]}")
done

running=0
for k in "${!all[@]}"; do
  if ((running >= jobs)); then
    wait -n
    running=$((running - 1))
  fi
  run_case "${all[$k]}" "$logs/result.$k" &
  running=$((running + 1))
done
wait

passed=0
failed=0
for k in "${!all[@]}"; do
  if [[ ! -s "$logs/result.$k" ]]; then
    echo "FAIL  ${all[$k]}: no verdict recorded"
    failed=$((failed + 1))
    continue
  fi
  cat "$logs/result.$k"
  if [[ "$(head -c 2 "$logs/result.$k")" == "ok" ]]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
done
echo "run_bad_inputs: $passed of ${#all[@]} passed, $failed failed"
((failed == 0))
