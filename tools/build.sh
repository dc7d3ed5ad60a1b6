#!/bin/bash
# Configures and builds islandpso with the given CMake preset (default: "default").
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-default}
cmake --preset "$preset"
cmake --build --preset "$preset" -j "$(nproc)"
