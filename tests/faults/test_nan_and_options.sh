#!/bin/bash
# Two refusals that were silent: an objective that never gives a finite
# value (every call NaN) ends with exit 1 and says so instead of exit 0 and
# a "best" of infinity; --overwrite given with --restart or --resume is
# refused (exit 2) instead of ignored. Files there before are untouched.
. "$IPSO_TEST_DIR/lib/common.sh"
. "$IPSO_TEST_DIR/faults/user_lib.sh"
export IPSO_CACHE_DIR=$work/cache
run=$work/run
mkdir -p "$run"
cd "$run" || exit 1
printf 'precious data\n' >precious.dat
cat >nan.cu <<'SRC'
/* No finite value anywhere. */
ipso_real nan_everywhere(const ipso_real *x, int d)
{
  (void)x;
  (void)d;
  return (ipso_real)NAN;
}
SRC
user_cfg nan.toml nan.cu nan_everywhere 3 16 50
sed -i 's/^output = ""$/output = "nan.h5"/' nan.toml
snapshot "$run"
expect_rc 1 "an objective that is NaN everywhere" "$IPSO_BIN" nan.toml
echo "$out" | grep -q "no finite objective value in 816 evaluations: every value was NaN or infinite" &&
  pass "the message says why" || fail "message: $out"
echo "$out" | grep -q "best fitness" && fail "a best fitness was printed"
if "$IPSO_PYTHON" -c "import h5py,sys; f=h5py.File('nan.h5','r'); sys.exit('result' in f)"; then
  pass "the output has no result"
else
  fail "the output has a result group"
fi
untouched "$run" "NaN objective"

# A finished run with its output and checkpoint, then the conflicting options.
user_cfg ok.toml nan.cu nan_everywhere 3 16 50
cat >sphere.cu <<'SRC'
ipso_real sphere3(const ipso_real *x, int d)
{
  ipso_real s = 0;
  for (int i = 0; i < d; i++) s += x[i] * x[i];
  return s;
}
SRC
user_cfg ok.toml sphere.cu sphere3 3 16 50
sed -i -e 's/^output = ""$/output = "ok.h5"/' -e 's/^checkpoint = ""$/checkpoint = "ok.ckpt.h5"/' ok.toml
expect_rc 0 "a finished run" "$IPSO_BIN" ok.toml
snapshot "$run"
for opt in "--restart ok.ckpt.h5" "--resume"; do
  # shellcheck disable=SC2086
  expect_rc 2 "--overwrite with $opt" "$IPSO_BIN" ok.toml --overwrite $opt
  echo "$out" | grep -q "error: --overwrite with ${opt%% *}: a continued run never replaces its output" &&
    pass "--overwrite with $opt: the message says why" || fail "message: $out"
  untouched "$run" "--overwrite with $opt"
done
finish
