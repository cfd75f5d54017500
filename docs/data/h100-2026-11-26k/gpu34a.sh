#!/usr/bin/env bash
# Thirty-fourth session, call a: the thirty-third session's last commits
# (never run on a GPU) and this session's: the GPU tests, the scheduler's
# unit tests and the Python package's tests (the host gate now lets a
# bracket past its lease go); then check_loads.py, both scenarios, with
# enable("latency-critical") warming the thread's cuBLAS/cuDNN up (default).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/a; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
t0=$(date +%s)
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3)"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
timeout 240 ctest --test-dir build-gpu -R 'gpu\.|variants_gpu|Scheduler' -E 'preload_cub' --output-on-failure > $L/ctest.log 2>&1; echo "ctest rc=$? $(( $(date +%s)-t0 ))s"
grep -E "tests passed|Failed|\*\*\*Timeout" $L/ctest.log | head -10
export PYTHONPATH=$R/build-gpu/python
(cd python/tests && timeout 90 python3 -m unittest -v test_gate_lease_gpu test_router_gpu) > $L/pytests.log 2>&1; echo "pytests rc=$?"
grep -E " \.\.\. |^Ran|^OK|FAILED" $L/pytests.log | cut -c1-160
left=$(( 560 - ($(date +%s)-t0) ))
BATON_CACHE_DIR=$L/cache timeout $left python3 bench/torch/check_loads.py --out $L --timeout $(( left / 2 - 10 )) > $L/loads.log 2>&1; echo "loads rc=$? $(( $(date +%s)-t0 ))s"
grep -E "request|PASS|FAIL" $L/loads.log | cut -c1-200 | tail -10
grep -o '"scheduler": {[^}]*}' $L/loads.log | cut -c1-400
rm -rf $L/cache
gzip -f $L/*.log
cd $OUT && tar czf a.tgz a && rm -rf a
