#!/bin/bash
# The compiled-object cache follows the headers a user objective #includes:
# its minimum is a constant defined in a header that a header includes; the
# run after editing that header finds the new minimum (a cache keyed on the
# user's file alone gave the old one), a run with nothing edited takes the
# object from the cache, and the run directory's files are untouched.
. "$IPSO_TEST_DIR/lib/common.sh"
. "$IPSO_TEST_DIR/faults/user_lib.sh"
export IPSO_CACHE_DIR=$work/cache
run=$work/run
mkdir -p "$run/inc"
cat >"$run/shifted.cu" <<'SRC'
/* OFFSET + the squared distance to SHIFT: minimum OFFSET (inc/params.h). */
#include "inc/params.h"
ipso_real shifted(const ipso_real *x, int d)
{
  ipso_real s = 0;
  for (int i = 0; i < d; i++) s += (x[i] - SHIFT) * (x[i] - SHIFT);
  return OFFSET + s;
}
SRC
printf '#include "offset.h"\n#define SHIFT 1.5\n' >"$run/inc/params.h"
printf '#define OFFSET 5.0\n' >"$run/inc/offset.h"
user_cfg "$run/u.toml" shifted.cu shifted 2 32 200

# check_min LO HI WHAT: a run's best fitness is within [LO, HI).
check_min() {
  snapshot "$run"
  out=$(cd "$run" && "$IPSO_BIN" u.toml 2>&1) || fail "$3: run: $out"
  if within "$(best "$out")" "$1" "$2"; then
    pass "$3: minimum $(best "$out")"
  else
    fail "$3: best fitness '$(best "$out")', want in [$1, $2)"
  fi
  untouched "$run" "$3"
}
objects() { find "$IPSO_CACHE_DIR" -name 'user-*.so' | wc -l; }

check_min 5 5.001 "OFFSET 5"
check_min 5 5.001 "OFFSET 5 again"
[ "$(objects)" -eq 1 ] && pass "the second run took the compiled object from the cache" ||
  fail "$(objects) compiled objects after two runs of the same code"
printf '#define OFFSET 7.0\n' >"$run/inc/offset.h"
check_min 7 7.001 "offset.h edited to OFFSET 7"
[ "$(objects)" -eq 2 ] && pass "the edited header compiled a new object" ||
  fail "$(objects) compiled objects after the header's edit, want 2"
printf '#define OFFSET 5.0\n' >"$run/inc/offset.h"
check_min 5 5.001 "offset.h back to OFFSET 5"
[ "$(objects)" -eq 2 ] && pass "back to the first header: the first object, from the cache" ||
  fail "$(objects) compiled objects, want 2"
# A header that is missing now is a compile error naming it, exit 2.
rm "$run/inc/offset.h"
snapshot "$run"
expect_rc 2 "offset.h removed" bash -c "cd '$run' && '$IPSO_BIN' u.toml"
echo "$out" | grep -q "offset.h" && echo "$out" | grep -q "cannot compile objective.source" &&
  pass "offset.h removed: the compiler's message names it" || fail "offset.h removed: message: $out"
untouched "$run" "offset.h removed"
finish
