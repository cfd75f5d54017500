#!/usr/bin/env bash
set -u
cd "$(dirname "$0")/.."
export PYTHONPATH=$PWD/build-torch/python BATON_CACHE_DIR=/tmp/bcache-19
[ -d build-torch ] || { cmake -S . -B build-torch -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) > /dev/null 2>&1 && cmake --build build-torch -j16 --target baton_python > /dev/null 2>&1; }
timeout 300 python3 build-scratch/issue_time.py 2>&1 | grep -E "step|Error|error" | tail -8 | tee $OUT/issue_time.log
