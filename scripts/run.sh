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

custom_op=$build/examples/clang-custom-op
if [[ -x $custom_op/custom_op_demo ]]; then
  echo "== examples/clang-custom-op: built with the plugin (eager and lazy) and without it in $custom_op"
fi

if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
  echo "== GPU demo"
  if [[ -x $custom_op/custom_op_demo ]]; then
    examples/clang-custom-op/run.sh "$custom_op/custom_op_demo" \
      "$custom_op/custom_op_demo_plain" "$custom_op/run" \
      "$custom_op/custom_op_demo_lazy"
  fi
  BATON_BUILD_DIR="$build" scripts/gpu-check.sh
else
  echo "== GPU demo skipped: no NVIDIA GPU on this machine"
fi
