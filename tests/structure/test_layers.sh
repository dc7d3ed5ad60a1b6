#!/bin/bash
# The layer rules are enforced: the tree obeys them (every folder a layer),
# and each forbidden include planted into a copy of the tree (MPI or HDF5 in
# kernels/, CUDA in mpi/, a layer reaching up, an include cycle, a header
# declaring what a layer above defines) is refused by the checker, and the
# build of that copy fails at its first step (target layer_check).
set -euo pipefail
src=${IPSO_SOURCE_DIR:?}
py=${IPSO_PYTHON:-python3}
check="$py $src/tools/check_layers.py"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

$check "$src" || { echo "FAIL: the tree breaks the layer rules"; exit 1; }

# plant NAME FILE LINE EXPECTED: a copy of the tree with LINE appended to
# FILE must be refused with a message matching EXPECTED.
plant() {
  local name=$1 file=$2 line=$3 expected=$4 tree="$work/$1"
  mkdir -p "$tree"
  cp -r "$src/src" "$src/io" "$src/mpi" "$src/kernels" "$src/bench" "$tree/"
  printf '%s\n' "$line" >>"$tree/$file"
  if $check "$tree" 2>"$work/$name.err"; then
    echo "FAIL: $name: the checker accepted $file with '$line'"
    exit 1
  fi
  grep -Eq "$expected" "$work/$name.err" || {
    echo "FAIL: $name: expected /$expected/, got:"
    cat "$work/$name.err"
    exit 1
  }
  echo "ok: $name refused: $(head -1 "$work/$name.err")"
}
plant kernels_mpi kernels/gpu_mapping.c '#include <mpi.h>' 'kernels/gpu_mapping.c:[0-9]+: the gpu layer must not include <mpi.h>'
plant kernels_hdf5 kernels/gpu_mapping.h '#include <hdf5.h>' 'gpu layer must not include <hdf5.h>'
plant kernels_io kernels/gpu_mapping.c '#include "h5out.h"' 'gpu layer must not include io/hdf5/h5out.h'
plant mpi_cuda mpi/island_mpi.c '#include <cuda_runtime_api.h>' 'comm layer must not include <cuda_runtime_api.h>'
plant mpi_nvrtc mpi/island_mpi.h '#include <nvrtc.h>' 'comm layer must not include <nvrtc.h>'
plant hdf5_kernels io/hdf5/h5out.c '#include "backend_gpu.h"' 'hdf5 layer must not include kernels/backend_gpu.h'
plant model_solver src/model/swarm.h '#include "solver.h"' 'model layer must not include src/solver/solver.h'
plant config_model io/config/config.h '#include "swarm.h"' 'config layer must not include src/model/swarm.h'
plant base_problem src/base/log.h '#include "objective.h"' 'base layer must not include src/problem/objective.h'
# A call up the layers: a model header declaring a function the solver
# defines.
mkdir -p "$work/upcall"
cp -r "$src/src" "$src/io" "$src/mpi" "$src/kernels" "$src/bench" "$work/upcall/"
printf 'int solver_run_twice(int x);\n' >>"$work/upcall/src/model/swarm.h"
printf 'int solver_run_twice(int x)\n{\n  return 2 * x;\n}\n' >>"$work/upcall/src/solver/solver.c"
if $check "$work/upcall" 2>"$work/upcall.err" ||
  ! grep -q "src/model/swarm.h: declares solver_run_twice(), which src/solver/ defines" "$work/upcall.err"; then
  echo "FAIL: a model header declaring a solver function was not refused"
  cat "$work/upcall.err"
  exit 1
fi
echo "ok: upcall refused: $(head -1 "$work/upcall.err")"
# An include cycle inside one layer: src/model/swarm.h <-> src/model/migration.h.
mkdir -p "$work/cycle"
cp -r "$src/src" "$src/io" "$src/mpi" "$src/kernels" "$src/bench" "$work/cycle/"
printf '#include "migration.h"\n' >>"$work/cycle/src/model/swarm.h"
printf '#include "swarm.h"\n' >>"$work/cycle/src/model/migration.h"
if $check "$work/cycle" 2>"$work/cycle.err" || ! grep -q "include cycle: .*swarm.h.*migration.h\|include cycle: .*migration.h.*swarm.h" "$work/cycle.err"; then
  echo "FAIL: a cycle between src/model/swarm.h and src/model/migration.h was not reported"
  cat "$work/cycle.err"
  exit 1
fi
echo "ok: cycle refused: $(grep 'include cycle' "$work/cycle.err" | head -1)"

# The build itself refuses: configure a copy with MPI in kernels/ and build.
tree="$work/build_tree"
mkdir -p "$tree"
(cd "$src" && cp -r CMakeLists.txt CMakePresets.json src io mpi kernels bench tools tests jobs data "$tree/")
printf '#include <mpi.h>\n' >>"$tree/kernels/gpu_mapping.c"
cmake -S "$tree" -B "$work/build" -DBUILD_TESTING=OFF -DIPSO_WITH_CUDA=OFF >"$work/configure.log" 2>&1 || {
  echo "FAIL: configuring the copy failed"
  tail -20 "$work/configure.log"
  exit 1
}
if cmake --build "$work/build" --target ipso_base >"$work/build.log" 2>&1; then
  echo "FAIL: the build of a tree with <mpi.h> in kernels/ succeeded"
  exit 1
fi
grep -q "kernels/gpu_mapping.c:[0-9]*: the gpu layer must not include <mpi.h>" "$work/build.log" || {
  echo "FAIL: the build failed without naming the forbidden include:"
  tail -20 "$work/build.log"
  exit 1
}
echo "ok: the build of the copy fails: $(grep 'must not include' "$work/build.log" | head -1)"
