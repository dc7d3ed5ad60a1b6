#!/bin/bash
# Installs what islandpso needs from the distribution's packages (Debian 12,
# Ubuntu 24.04): compilers, CMake, Open MPI, parallel HDF5, toml++, Python
# with h5py and matplotlib, Slurm + munge for the cluster tests, clang-format
# for the format check, and clang
# with its sanitizer runtimes for the config fuzzer.
# Idempotent: installs only what is missing. Uses sudo when not root.
# The CUDA toolkit is not a distribution package here: install NVIDIA's when
# the GPU backend is wanted; without it islandpso builds CPU-only.
set -euo pipefail
packages=(build-essential cmake pkg-config git openmpi-bin libopenmpi-dev
          libhdf5-openmpi-dev hdf5-tools libtomlplusplus-dev python3 python3-h5py
          python3-matplotlib slurm-wlm munge clang clang-format)
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
updated=0
install_missing() {
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -gt 0 ] || return 0
  echo "setup: installing ${missing[*]}"
  [ "$updated" -eq 1 ] || { $sudo apt-get update -qq; updated=1; }
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}
install_missing "${packages[@]}"
# libFuzzer and the sanitizer runtimes of the installed clang (the package
# name carries its major version: libclang-rt-14-dev on Debian 12).
clang_major=$(clang --version | sed -n 's/.*clang version \([0-9]*\).*/\1/p' | head -1)
if [ -n "$clang_major" ] && apt-cache show "libclang-rt-$clang_major-dev" >/dev/null 2>&1; then
  install_missing "libclang-rt-$clang_major-dev"
fi
echo "setup: all packages present"
