#!/bin/bash
# The quickstart (configs/quickstart.toml) on 4 ranks: exit 0, the result
# printed, convergence (final best far below the initial one) in the file,
# and the report tool's summary and plots.
. "$IPSO_TEST_DIR/lib/common.sh"
expect_rc 0 "quickstart on 4 ranks" mpi 4 "$IPSO_SOURCE_DIR/configs/quickstart.toml" --backend cpu
echo "$out" | grep -q "best fitness" || fail "no result printed"
"$IPSO_PYTHON" - <<'PY' || fail "convergence"
import h5py
with h5py.File("quickstart.h5") as f:
    g = f["/history/global_best"][()]
    first, last = g[0], g[-1]
    print(f"global best {first:.4g} -> {last:.4g} over {len(g)} rows")
    assert last < first / 10 and last < 10, "no convergence"
    assert (g[1:] <= g[:-1]).all(), "global best got worse"
PY
expect_rc 0 "islandpso-report" "$IPSO_PYTHON" "$IPSO_SOURCE_DIR/tools/islandpso-report" quickstart.h5
finish
