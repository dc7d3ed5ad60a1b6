#!/bin/bash
# Known optima within a fixed budget (CPU backend, one island), read from the
# run's /result/best_fitness:
#   30-D sphere, 256 particles, 3000 iterations: best < 1e-10
#   30-D rastrigin, 256 particles, 3000 iterations: best < 100 (random start ~560)
#   1-D cubic (maximized, the paper's problem), 2048 particles, 300 iterations: 900000 exactly
. "$IPSO_TEST_DIR/lib/common.sh"
check() { # check WHAT OBJECTIVE DIMS PARTICLES ITERATIONS AWK-CONDITION
  local out best
  ipso_config "$2.toml" "$2" "$3" "$4" "$5" "run.output=\"$2.h5\""
  out=$("$IPSO_BIN" "$2.toml" 2>&1) || { fail "$1: exit $?"; echo "$out"; return; }
  best=$(h5_best "$2.h5") || { fail "$1: no /result/best_fitness"; return; }
  if [ -n "$best" ] && awk -v b="$best" "BEGIN { exit !($6) }"; then pass "$1: best $best"; else fail "$1: best '$best'"; fi
}
check "30-D sphere" sphere 30 256 3000 "b < 1e-10"
check "30-D rastrigin" rastrigin 30 256 3000 "b < 100"
check "1-D cubic" cubic 1 2048 300 "b == 900000"
finish
