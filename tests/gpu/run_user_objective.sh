#!/bin/bash
# User objectives on the GPU: rastrigin_user (configs/user/rastrigin.cu),
# evaluated on one thread per particle and, declared separable, split across
# the threads of a particle like the built-ins, gives the built-in
# rastrigin's values to rounding at the same positions (iterations 0 and 1
# of identical swarms); a function declared separable that is not (a
# per-coordinate shift) is refused with exit 2 by the GPU's own check; a
# syntax error names the user's file and line (NVRTC), exit 2.
. "$(dirname "$0")/gpu_common.sh"
cd "$work" || exit 1
fail=0
for obj in rastrigin user user_sep; do
  write_config $obj.toml $obj 30 500 double queue_lock strict 1 5 "run.output=\"$obj.h5\"" \
    output.snapshot_interval=1
  if ! out=$("$IPSO_BIN" $obj.toml 2>&1); then
    echo "FAIL $obj run"; echo "$out" | tail -5; fail=$((fail + 1))
  fi
done
if "$IPSO_PYTHON" "$IPSO_TEST_DIR/lib/snapshot_values.py" rastrigin.h5 user.h5 user_sep.h5; then
  echo "ok   whole-row and separable rastrigin_user = built-in to 1e-12"
else
  echo "FAIL values"; fail=$((fail + 1))
fi

cat >shifted.cu <<'SRC'
ipso_real shifted(const ipso_real *x, int d)
{
  ipso_real s = 0;
  for (int i = 0; i < d; i++) s += (x[i] - shift[i]) * (x[i] - shift[i]);
  return s;
}
SRC
# shifted_config FILE SOURCE FUNCTION [SECTION.KEY=VALUE...]: the 3-D shifted sphere's config.
shifted_config() {
  write_config "$1" sphere 3 64 float queue_lock strict 5 5 'objective.name="user"' \
    "objective.source=\"$2\"" "objective.function=\"$3\"" objective.lower=-10 objective.upper=10 \
    'objective.params.shift=[1.5, -2.25, 3.0]' "${@:4}"
}
shifted_config ns.toml shifted.cu shifted objective.separable=true
out=$("$IPSO_BIN" ns.toml 2>&1); rc=$?
if [ $rc -eq 2 ] && echo "$out" | grep -q "shifted is not a sum of one function of each coordinate"; then
  echo "ok   non-separable function declared separable: exit 2 on the GPU"
else
  echo "FAIL non-separable declared separable: exit $rc"; echo "$out" | tail -5; fail=$((fail + 1))
fi

printf 'ipso_real broken(const ipso_real *x, int d)\n{\n  return x[0] +;\n}\n' >broken.cu
shifted_config br.toml broken.cu broken
out=$("$IPSO_BIN" br.toml 2>&1); rc=$?
if [ $rc -eq 2 ] && echo "$out" | grep -q "broken.cu(3)\|broken.cu:3" && echo "$out" | grep -q "cannot compile objective.source for the GPU"; then
  echo "ok   syntax error: exit 2, broken.cu line 3 named (NVRTC)"
else
  echo "FAIL syntax error: exit $rc"; echo "$out" | tail -5; fail=$((fail + 1))
fi
[ "$fail" -eq 0 ] && echo passed
[ "$fail" -eq 0 ]
