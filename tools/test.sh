#!/bin/bash
# Sets up, builds and runs the whole test suite (CTest; GPU tests skip where
# there is no GPU). Extra arguments go to ctest, e.g. -L unit.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
bash tools/build.sh default
ctest --preset default "$@"
