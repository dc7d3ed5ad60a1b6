#!/bin/bash
# Runs "islandpso --dry-run" on every config in tests/config/bad and checks
# that each one exits with status 2, prints the expected message and creates
# no file (nothing is touched before the config is known to be good).
#
# Each config starts with comment lines read by this script:
#   # expect: <text that stderr must contain>
#   # set: section.key=value      (optional, repeatable: passed as --set)
#   # ranks: N                    (optional: run under $MPIEXEC with N ranks)
#
# Environment (set by CTest): IPSO_BIN, MPIEXEC, MPIEXEC_NUMPROC_FLAG.
set -u

here=$(cd "$(dirname "$0")" && pwd)
bin=${IPSO_BIN:-}
mpiexec=${MPIEXEC:-mpiexec}
npflag=${MPIEXEC_NUMPROC_FLAG:--n}

if [[ -z "$bin" || ! -x "$bin" ]]; then
  echo "run_bad_configs: IPSO_BIN ('$bin') is not an executable islandpso" >&2
  exit 1
fi

logs=$(mktemp -d "${TMPDIR:-/tmp}/ipso_bad_configs.XXXXXX") || exit 1
trap 'rm -rf "$logs"' EXIT

passed=0
failed=0

# check NAME EXPECT RANKS ARGS...: runs islandpso with ARGS in an empty
# directory and reports whether it failed as expected.
check() {
  local name=$1 expect=$2 ranks=$3
  shift 3
  local work rc reason=""
  work=$(mktemp -d "$logs/work.XXXXXX")
  local cmd=("$bin" --dry-run "$@")
  if ((ranks > 1)); then
    cmd=("$mpiexec" "$npflag" "$ranks" "${cmd[@]}")
  fi
  (cd "$work" && timeout 120 "${cmd[@]}") >"$logs/out" 2>"$logs/err" </dev/null
  rc=$?
  if ((rc != 2)); then
    reason="exit status $rc, expected 2"
  elif ! grep -qF -- "$expect" "$logs/err"; then
    reason="stderr lacks: $expect"
  elif [[ -n "$(ls -A "$work")" ]]; then
    reason="created files: $(ls -A "$work" | tr '\n' ' ')"
  fi
  if [[ -z "$reason" ]]; then
    echo "ok    $name"
    passed=$((passed + 1))
  else
    echo "FAIL  $name: $reason"
    sed 's/^/      | /' "$logs/err" | head -n 20
    failed=$((failed + 1))
  fi
  rm -rf "$work"
}

shopt -s nullglob
configs=("$here"/bad/*.toml)
if ((${#configs[@]} == 0)); then
  echo "run_bad_configs: no configs in $here/bad" >&2
  exit 1
fi

for file in "${configs[@]}"; do
  name=$(basename "$file" .toml)
  # The header is the leading comment block; NUL bytes of binary files are dropped.
  header=$(head -c 4096 "$file" | tr -d '\000' | awk '!/^#/ { exit } { print }')
  expect=$(sed -n 's/^# expect: //p' <<<"$header" | head -n 1)
  ranks=$(sed -n 's/^# ranks: //p' <<<"$header" | head -n 1)
  args=("$file")
  while IFS= read -r set; do
    [[ -n "$set" ]] && args+=(--set "$set")
  done < <(sed -n 's/^# set: //p' <<<"$header")
  if [[ -z "$expect" ]]; then
    echo "FAIL  $name: no '# expect:' line"
    failed=$((failed + 1))
    continue
  fi
  check "$name" "$expect" "${ranks:-1}" "${args[@]}"
done

# A config that cannot be read at all.
check missing_file "cannot read config '$logs/no_such_config.toml'" 1 "$logs/no_such_config.toml"

echo "run_bad_configs: $passed passed, $failed failed"
((failed == 0))
