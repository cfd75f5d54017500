#!/usr/bin/env bash
# Thirty-third session, call c: brackets have a lease (1 s, as the
# registry's): the GPU tests and the runtime's unit tests, then
# check_loads.py alone, which hung in calls a and b (its faulthandler dumps
# every thread's stack at 185 s if it hangs again).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/c; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
t0=$(date +%s)
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
(cmake -S . -B build-torch -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF \
   -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) \
   -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DCLI11_INCLUDE_DIR=$R/.deps &&
 cmake --build build-torch --target baton_python) > $L/build-torch.log 2>&1 || { tail -20 $L/build-torch.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
export PYTHONPATH=$R/build-torch/python
BATON_CACHE_DIR=$L/cache timeout 230 python3 bench/torch/check_loads.py --out $L --timeout 200 > $L/loads.log 2>&1; echo "loads rc=$? $(( $(date +%s)-t0 ))s"
grep -E "request|PASS|FAIL|baton:" $L/loads.log | cut -c1-300 | tail -10
grep -o '"scheduler": {[^}]*}' $L/loads.log | head -2
timeout 300 ctest --test-dir build-gpu -R 'gpu\.|variants_gpu|Scheduler' -E 'preload_cub' > $L/ctest.log 2>&1; echo "ctest rc=$? $(( $(date +%s)-t0 ))s"
grep -E "tests passed|Failed|\*\*\*Timeout" $L/ctest.log | head -10
rm -rf $L/cache
gzip -f $L/*.log
cd $OUT && tar czf c.tgz c && rm -rf c
