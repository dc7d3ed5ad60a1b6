#!/bin/bash
# The product code (src, io, kernels, mpi) is formatted by the project's
# .clang-format, no file is over 700 lines and no function over 120
# (a function: from a line that is only "{" after a line ending in ")" to
# the "}" at its indentation). clang-format 14 (Debian 12's, what tools/setup.sh
# installs); another major version formats some constructs otherwise: skip.
set -uo pipefail
src=${IPSO_SOURCE_DIR:?}
cd "$src" || exit 1
files=$(git ls-files src io kernels mpi 2>/dev/null | grep -E '\.(c|h|cu|cuh|cpp|hpp)$')
[ -n "$files" ] || files=$(find src io kernels mpi -regex '.*\.\(c\|h\|cu\|cuh\|cpp\|hpp\)' | sort)
fail=0
if ! command -v clang-format >/dev/null; then
  echo "no clang-format: skipped"; exit 77
fi
major=$(clang-format --version | sed -n 's/.*version \([0-9]*\).*/\1/p')
if [ "$major" != 14 ]; then
  echo "clang-format $major, the project's is 14: skipped"; exit 77
fi
for f in $files; do
  if ! clang-format --dry-run -Werror "$f" >/dev/null 2>&1; then
    echo "FAIL: $f is not formatted (clang-format -i $f)"; fail=1
  fi
  n=$(wc -l <"$f")
  [ "$n" -le 700 ] || { echo "FAIL: $f has $n lines (at most 700)"; fail=1; }
  awk -v f="$f" '
    /^ *\{$/ && prev ~ /\)( const)?( override)?$/ && !start {start = NR; ind = index($0, "{") - 1}
    start && NR > start && substr($0, 1, ind + 1) == sprintf("%*s}", ind, "") {
      if (NR - start + 1 > 120) {
        printf "FAIL: %s:%d: a function of %d lines (at most 120)\n", f, start, NR - start + 1; bad = 1
      }
      start = 0
    }
    {prev = $0} END {exit bad}' "$f" || fail=1
done
echo "$(echo "$files" | wc -l) files checked"
[ $fail -eq 0 ] && echo passed || echo FAILED
exit $fail
