#!/usr/bin/env bash
# Thirty-first session, call c: gpu.preload_graphs again (its CPU reference
# now fuses the multiply-add as the kernel does), and
# bench/torch/check_graphs.py with CUDA graph capture handled: Inductor's
# graph trees for best-effort training and for a latency-critical thread
# next to routed training, and a manual global-mode capture while routed
# work is in flight.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/c; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
t0=$(date +%s)
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
timeout 200 ctest --test-dir build-gpu -R 'gpu.preload_graphs' --output-on-failure > $L/graphs.log 2>&1; echo "preload_graphs rc=$? $(( $(date +%s)-t0 ))s"
grep -E "PASS|FAIL|graph_check:|launches|\"lc_" $L/graphs.log | head -30
python=$(command -v python3)
(cmake -S . -B build-torch -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF \
   -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$python \
   -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DCLI11_INCLUDE_DIR=$R/.deps &&
 cmake --build build-torch --target baton_python) > $L/build-torch.log 2>&1 || { tail -20 $L/build-torch.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
export PYTHONPATH=$R/build-torch/python BATON_CACHE_DIR=$L/cache
timeout 480 python3 bench/torch/check_graphs.py --out $L --timeout 150 > $L/check_graphs.log 2>&1; echo "check_graphs rc=$? $(( $(date +%s)-t0 ))s"
grep -E "^\{|PASS|FAIL|Error|baton:" $L/check_graphs.log | cut -c1-600 | head -30
rm -rf $L/cache
cd $OUT && tar czf c.tgz c && rm -rf c
