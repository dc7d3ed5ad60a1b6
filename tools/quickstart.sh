#!/bin/bash
# Sets up, builds and runs the quickstart job: 4 islands (MPI ranks) on
# 10-D Rastrigin, on the GPU when there is one and the CPU otherwise, then
# prints the report of its HDF5 file. Output in run/quickstart/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
bash tools/build.sh default
mkdir -p run/quickstart
cd run/quickstart
flags=(-np 4)
[ "$(id -u)" -ne 0 ] || flags+=(--allow-run-as-root)
[ "$(nproc)" -ge 4 ] || flags+=(--oversubscribe)
mpirun "${flags[@]}" ../../build/islandpso ../../configs/quickstart.toml --overwrite
# The report needs h5py and matplotlib: the distribution's python3 has them.
py=python3
for cand in /usr/bin/python3 python3; do
  if "$cand" -c "import h5py, matplotlib" 2>/dev/null; then py=$cand; break; fi
done
"$py" ../../tools/islandpso-report quickstart.h5
