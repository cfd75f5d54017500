#!/usr/bin/env bash
# Which exactly_once case hangs with the stream taken at start.
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
cmake --build build-gpu -j16 --target exactly_once baton-ptx > /dev/null 2>&1 || { cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$PWD/.deps > /dev/null 2>&1 && cmake --build build-gpu -j16 --target exactly_once baton-ptx > /dev/null 2>&1; }
build-gpu/tools/baton-ptx/baton-ptx test/gpu/kernels/record.ptx -o /tmp/record.ptx
timeout 100 stdbuf -oL build-gpu/test/gpu/exactly_once /tmp/record.ptx 2>&1 | tail -20; echo "rc=${PIPESTATUS[0]} $(( $(date +%s)-t0 ))s"
