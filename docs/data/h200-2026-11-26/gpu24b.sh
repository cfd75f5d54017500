#!/usr/bin/env bash
# Twenty-fourth session, call b: gaps.py with the host's share of each gap,
# at the default quiet window (4) and at 16 (issue 6).
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
L=$OUT/b; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) -DBATON_PYBIND11_INCLUDE_DIR=$PWD/.deps/pybind11/include"
(cmake -S . -B build-torch $CFG && cmake --build build-torch --target baton_python) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
export PYTHONPATH=$PWD/build-torch/python BATON_CACHE_DIR=/tmp/bcache-24
for w in 4 16; do
  BATON_LAUNCHES_AHEAD_QUIET=$w timeout 250 python3 build-scratch/gaps.py --scale large > $L/gaps-w$w.log 2>&1; echo "gaps w=$w rc=$? $(( $(date +%s)-t0 ))s"
  sed -n '/^host issue per step, plain/,$p' $L/gaps-w$w.log | grep -v -i 'autotune\|triton_mm\|decompose\|choices\|strides\|dtypes\|E1126\|warn' 
done
cd $OUT && tar czf b.tgz b && rm -rf b
