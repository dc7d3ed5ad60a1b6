#!/bin/bash
# Known optima within a fixed budget (CPU backend, one island), read from the
# run's /result/best_fitness:
#   30-D sphere, 256 particles, 3000 iterations: best < 1e-10
#   30-D rastrigin, 256 particles, 3000 iterations: best < 100 (random start ~560)
#   1-D cubic (maximized, the paper's problem), 2048 particles, 300 iterations: 900000 exactly
#   30-D rastrigin with the clpso topology, 4 islands x 40 particles, 5000
#   iterations: the optimum (best < 1e-6), which the ring does not reach
#   30-D CEC 2017 F1 (shifted and rotated bent cigar), 4 islands x 64
#   particles at the official budget (300,000 evaluations): the optimum
#   (error < 1e-6) in eigen frames, error > 1 along the axes
. "$IPSO_TEST_DIR/lib/common.sh"
check() { # check WHAT OBJECTIVE DIMS PARTICLES ITERATIONS AWK-CONDITION [KEY=VALUE...]
  local out best name=${NAME:-$2}
  [ $# -gt 6 ] && [ -z "${NAME:-}" ] && name=$2_settings # files of their own beside the defaults' run
  ipso_config "$name.toml" "$2" "$3" "$4" "$5" "run.output=\"$name.h5\"" "${@:7}"
  out=$("$IPSO_BIN" "$name.toml" 2>&1) || { fail "$1: exit $?"; echo "$out"; return; }
  best=$(h5_best "$name.h5") || { fail "$1: no /result/best_fitness"; return; }
  if [ -n "$best" ] && awk -v b="$best" "BEGIN { exit !($6) }"; then pass "$1: best $best"; else fail "$1: best '$best'"; fi
}
check "30-D sphere" sphere 30 256 3000 "b < 1e-10"
check "30-D rastrigin" rastrigin 30 256 3000 "b < 100"
check "1-D cubic" cubic 1 2048 300 "b == 900000"
check "30-D rastrigin, clpso" rastrigin 30 40 5000 "b < 1e-6" 'swarm.topology="clpso"' run.islands=4
for frame in eigen axes; do
  want="b - 100 < 1e-6"
  [ $frame = axes ] && want="b - 100 > 1"
  NAME=cec_$frame check "30-D CEC 2017 F1, frame $frame" cec2017 30 64 1171 "$want" \
    objective.number=1 run.islands=4 "swarm.frame=\"$frame\""
done
finish
