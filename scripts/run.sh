#!/usr/bin/env bash
# The main job (README): install what is missing, build, transform the
# examples, and run the GPU demo where a GPU is present.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
build=${BATON_BUILD_DIR:-build}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release ${BATON_CMAKE_ARGS:-}
cmake --build "$build" -j "$(nproc)"

echo "== examples/ptx-cli"
examples/ptx-cli/run.sh "$build/tools/baton-ptx/baton-ptx" "$build/examples/ptx-cli"

if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
  echo "== GPU demo"
  BATON_BUILD_DIR="$build" scripts/gpu-check.sh
else
  echo "== GPU demo skipped: no NVIDIA GPU on this machine"
fi
