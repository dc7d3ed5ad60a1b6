#!/bin/bash
# Nsight Compute profile of the resident queue-lock kernel on the paper's
# 1-D workload (cubic, 2,048 particles, double, strict): one launch of the
# resident kernel the plan picks (the first segment of iterations; the
# one-block kernel, or with IPSO_GPU_BLOCK=0 in the environment the
# cluster-resident one), with the speed-of-light, scheduler and warp-state
# sections, to see what an iteration waits on. Run on the GPU machine after
# building the gpu preset.
#
# Usage: bash bench/profile_cluster.sh [ISLANDPSO] [PARTICLES]
set -uo pipefail
bin=${1:-build-gpu/islandpso}
particles=${2:-2048}
command -v ncu >/dev/null 2>&1 || { echo "profile_cluster: ncu (Nsight Compute) not found"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export IPSO_CACHE_DIR=${IPSO_CACHE_DIR:-$work/cache}
cat >"$work/cluster.toml" <<CFG
[run]
seed = 1
backend = "gpu"
max_iterations = 20000
output = ""
[objective]
name = "cubic"
dimensions = 1
[swarm]
particles = $particles
kernel = "queue_lock"
sync = "strict"
topology = "global"
[output]
checkpoint = ""
progress = "off"
CFG
"$bin" "$work/cluster.toml" | grep -E "island 0|time" # compile into the cache, show the mode
ncu --kernel-name regex:resident --launch-count 1 \
  --section SpeedOfLight --section SchedulerStats --section WarpStateStats --section LaunchStats \
  --section Occupancy "$bin" "$work/cluster.toml" 2>&1 | grep -v "^islandpso\|^  island\|^==PROF==" 
