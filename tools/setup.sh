#!/bin/bash
# Installs what islandpso needs from the distribution's packages (Debian 12,
# Ubuntu 24.04): compilers, CMake, Open MPI, parallel HDF5, toml++, Python
# with h5py and matplotlib, and Slurm + munge for the cluster tests.
# Idempotent: installs only what is missing. Uses sudo when not root.
# The CUDA toolkit is not a distribution package here: install NVIDIA's when
# the GPU backend is wanted; without it islandpso builds CPU-only.
set -euo pipefail
packages=(build-essential cmake pkg-config git openmpi-bin libopenmpi-dev
          libhdf5-openmpi-dev hdf5-tools libtomlplusplus-dev python3 python3-h5py
          python3-matplotlib slurm-wlm munge)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all packages present"
  exit 0
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
