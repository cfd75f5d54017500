#!/usr/bin/env bash
# Twenty-fourth session, call i: what a request pays with no preemption
# (L2 eviction, a finished neighbour); check_training's gpt-dyn with one batch size.
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
L=$OUT/i; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
timeout 150 python3 build-scratch/l2probe.py > $L/l2probe.log 2>&1; echo "l2probe rc=$? $(( $(date +%s)-t0 ))s"; grep -v Warn $L/l2probe.log | tail -8
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) -DBATON_PYBIND11_INCLUDE_DIR=$PWD/.deps/pybind11/include"
(cmake -S . -B build-torch $CFG && cmake --build build-torch --target baton_python) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
export PYTHONPATH=$PWD/build-torch/python BATON_CACHE_DIR=/tmp/bcache-24
timeout 200 python3 bench/torch/check_training.py --models gpt-dyn --out $L > $L/check.log 2>&1; echo "check rc=$? $(( $(date +%s)-t0 ))s"
grep -E '^\[check|summary|PASS|FAIL|ERROR|INCONCLUSIVE|NOT' $L/check.log | grep -v 'reference losses' | tail -8
cd $OUT && tar czf i.tgz i && rm -rf i
