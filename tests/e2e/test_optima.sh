#!/bin/bash
# Known optima within a fixed budget (CPU backend, one island):
#   30-D sphere, 256 particles, 3000 iterations: best < 1e-10
#   30-D rastrigin, 256 particles, 3000 iterations: best < 100 (random start ~560)
#   1-D cubic (maximized, the paper's problem), 2048 particles, 300 iterations: 900000 exactly
. "$IPSO_TEST_DIR/lib/common.sh"
. "$IPSO_TEST_DIR/e2e/cfg.sh"
check() { # check WHAT CONFIG AWK-CONDITION
  local out best
  out=$("$IPSO_BIN" "$2" 2>&1) || { fail "$1: exit $?"; echo "$out"; return; }
  best=$(field "best fitness" "$out")
  if awk -v b="$best" "BEGIN { exit !($3) }"; then pass "$1: best $best"; else fail "$1: best $best"; fi
}
write_cfg sphere.toml sphere 30 256 3000
check "30-D sphere" sphere.toml "b < 1e-10"
write_cfg rastrigin.toml rastrigin 30 256 3000
check "30-D rastrigin" rastrigin.toml "b < 100"
write_cfg cubic.toml cubic 1 2048 300
check "1-D cubic" cubic.toml "b == 900000"
finish
