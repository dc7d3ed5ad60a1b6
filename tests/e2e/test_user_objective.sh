#!/bin/bash
# User objectives on the CPU backend: a user sphere gives bit for bit the
# built-in sphere's run; the user Rastrigin of configs/user gives the
# built-in's values to rounding; parameters arrive as constants; the fitting
# example finds the least-squares optimum; objective.separable is checked;
# a syntax error exits 2 naming the user's file and line (once, on several
# ranks); a missing function is a clear error.
. "$IPSO_TEST_DIR/lib/common.sh"
export IPSO_CACHE_DIR=$work/cache
user_cfg() { # user_cfg FILE SOURCE FUNCTION DIMS LOWER UPPER PARTICLES ITERATIONS [SECTION.KEY=VALUE...]
  local file=$1 src=$2 fn=$3 dims=$4 lo=$5 hi=$6 parts=$7 its=$8; shift 8
  ipso_config "$file" user "$dims" "$parts" "$its" "objective.source=\"$src\"" \
    "objective.function=\"$fn\"" "objective.lower=$lo" "objective.upper=$hi" "$@"
}

cat >sphere.cu <<'SRC'
/* x . x, summed in order: the built-in sphere's operations. */
ipso_real my_sphere(const ipso_real *x, int d)
{
  ipso_real s = 0;
  for (int i = 0; i < d; i++) s += x[i] * x[i];
  return s;
}
SRC
user_cfg u.toml sphere.cu my_sphere 12 -100 100 64 150 'run.output="u-sphere.h5"'
ipso_config b.toml sphere 12 64 150 'run.output="b-sphere.h5"'
u=$("$IPSO_BIN" u.toml 2>&1) || fail "user sphere run: $u"
b=$("$IPSO_BIN" b.toml 2>&1) || fail "built-in sphere run"
same_result b-sphere.h5 u-sphere.h5 "user sphere = built-in sphere, bit for bit"

# Rastrigin: same values to rounding at the same positions (iteration 0 and
# 1 snapshots of identical swarms), then the same kind of run.
user_cfg ur.toml "$IPSO_SOURCE_DIR/configs/user/rastrigin.cu" rastrigin_user 30 -5.12 5.12 50 1 \
  output.snapshot_interval=1 'run.output="u.h5"'
ipso_config br.toml rastrigin 30 50 1 output.snapshot_interval=1 'run.output="b.h5"'
"$IPSO_BIN" ur.toml >/dev/null 2>&1 || fail "user rastrigin run"
"$IPSO_BIN" br.toml >/dev/null 2>&1 || fail "built-in rastrigin run"
if "$IPSO_PYTHON" "$IPSO_TEST_DIR/lib/snapshot_values.py" b.h5 u.h5; then
  pass "user rastrigin = built-in rastrigin to 1e-12 (iterations 0 and 1)"
else
  fail "user rastrigin values"
fi

# Parameters as constants: a shifted sphere finds its shift.
cat >shifted.cu <<'SRC'
/* Squared distance to the configured point `shift`, scaled by `scale`. */
ipso_real shifted(const ipso_real *x, int d)
{
  ipso_real s = 0;
  for (int i = 0; i < d; i++) s += (x[i] - shift[i]) * (x[i] - shift[i]);
  return scale * s;
}
SRC
user_cfg s.toml shifted.cu shifted 3 -10 10 128 400 'objective.params.shift=[1.5, -2.25, 3.0]' \
  objective.params.scale=2.0 'run.output="s.h5"'
out=$("$IPSO_BIN" s.toml 2>&1) || fail "shifted run: $out"
pos=$(h5get s.h5 /result/best_position)
if [ -n "$pos" ] && awk -v p="$pos" 'BEGIN { split(p, a, " "); exit !(a[1] - 1.5 < 1e-6 && 1.5 - a[1] < 1e-6 &&
    a[2] + 2.25 < 1e-6 && -2.25 - a[2] < 1e-6 && a[3] - 3 < 1e-6 && 3 - a[3] < 1e-6) }'; then
  pass "parameters reach the function: optimum at the shift ($pos)"
else
  fail "shifted optimum at $pos"
fi

# The fitting example: the least-squares optimum of its data.
out=$(cd "$IPSO_SOURCE_DIR/configs/user" && "$IPSO_BIN" fit_decay.toml --backend cpu \
  --set "run.output=\"$work/fit.h5\"" --set 'output.checkpoint=""' --set output.progress=off 2>&1) ||
  fail "fit_decay run"
best=$(h5_best fit.h5)
if [ -n "$best" ] && awk -v b="$best" 'BEGIN { exit !(b > 0.0104520 && b < 0.0104522) }'; then
  pass "fit_decay reaches the least-squares optimum ($best)"
else
  fail "fit_decay best $best, want 0.0104521"
fi

# objective.separable = true: checked at start-up. A separable function runs
# as before (the CPU evaluates the whole row either way); functions that are
# not a sum of one function of each coordinate (a per-coordinate shift, a
# data fit) are refused with exit 2 and the two values that differ.
PREC=float user_cfg us.toml "$IPSO_SOURCE_DIR/configs/user/rastrigin.cu" rastrigin_user 30 -5.12 5.12 50 20 \
  objective.separable=true 'run.output="us.h5"'
PREC=float user_cfg un.toml "$IPSO_SOURCE_DIR/configs/user/rastrigin.cu" rastrigin_user 30 -5.12 5.12 50 20 \
  'run.output="un.h5"'
us=$("$IPSO_BIN" us.toml 2>&1) || fail "separable rastrigin_user run: $us"
un=$("$IPSO_BIN" un.toml 2>&1) || fail "rastrigin_user run"
same_result un.h5 us.h5 "separable rastrigin_user accepted, same run"
user_cfg ns.toml shifted.cu shifted 3 -10 10 16 5 objective.separable=true \
  'objective.params.shift=[1.5, -2.25, 3.0]' objective.params.scale=2.0
expect_rc 2 "shifted sphere declared separable" "$IPSO_BIN" ns.toml
echo "$out" | grep -q "objective.separable = true, but shifted is not a sum of one function of each coordinate" ||
  fail "non-separable shifted: message"
echo "$out" | grep -Eq "shifted\(x, 3\) = [-0-9.e+]+, while the sum of shifted\(&x\[i\], 1\) over its 3 coordinates is [-0-9.e+]+" ||
  fail "non-separable shifted: the two values"
out=$(cd "$IPSO_SOURCE_DIR/configs/user" && "$IPSO_BIN" fit_decay.toml --backend cpu --set objective.separable=true \
  --set 'run.output=""' --set 'output.checkpoint=""' --set output.progress=off 2>&1)
rc=$?
if [ "$rc" -eq 2 ] && echo "$out" | grep -q "fit_decay is not a sum of one function"; then
  pass "fit_decay declared separable: exit 2, refused"
else
  fail "fit_decay declared separable: exit $rc: $out"
fi

# Errors: a syntax error names the file and line; a missing function is named.
printf 'ipso_real broken(const ipso_real *x, int d)\n{\n  return x[0] +;\n}\n' >broken.cu
user_cfg e.toml broken.cu broken 2 -1 1 8 5
expect_rc 2 "syntax error in the user's file" "$IPSO_BIN" e.toml
echo "$out" | grep -q "broken.cu:3" || fail "syntax error: no 'broken.cu:3' in the message"
echo "$out" | grep -q "cannot compile objective.source" || fail "syntax error: no summary line"
# On several ranks the error is reported once (rank 0 compiles first).
expect_rc 2 "syntax error on 3 ranks" mpi 3 e.toml
n=$(echo "$out" | grep -c "cannot compile objective.source")
[ "$n" -eq 1 ] && pass "3 ranks: the compile error reported once" ||
  fail "3 ranks: the compile error reported $n times"
user_cfg m.toml sphere.cu nosuch 2 -1 1 8 5
expect_rc 2 "missing function" "$IPSO_BIN" m.toml
echo "$out" | grep -q "objective.function 'nosuch' is not defined in" || fail "missing function: message"
finish
