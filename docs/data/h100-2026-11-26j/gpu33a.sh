#!/usr/bin/env bash
# Thirty-third session, call a: module-load holds drain best-effort work
# that LC work keeps paused past their patience (Scheduler::drainBestEffort)
# instead of giving up after 2 s. The GPU tests (scheduler_check's new round:
# a load inside the loader's own bracket) and the runtime's unit tests, then
# check_loads.py (Triton compiles inside an explicit latency_critical()
# block next to routed training).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/a; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
t0=$(date +%s)
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
timeout 300 ctest --test-dir build-gpu -R 'gpu\.|variants_gpu|Scheduler' -E 'preload_cub' > $L/ctest.log 2>&1; echo "ctest rc=$? $(( $(date +%s)-t0 ))s"
grep -E "tests passed|Failed|\*\*\*Timeout" $L/ctest.log | head -10
build-gpu/test/gpu/scheduler_check build-gpu/test/gpu/xformed/record.ptx 2>&1 | tail -3 | tee $L/sched.log
(cmake -S . -B build-torch -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF \
   -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) \
   -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DCLI11_INCLUDE_DIR=$R/.deps &&
 cmake --build build-torch --target baton_python) > $L/build-torch.log 2>&1 || { tail -20 $L/build-torch.log; exit 1; }
export PYTHONPATH=$R/build-torch/python
left=$(( 570 - ($(date +%s)-t0) ))
BATON_CACHE_DIR=$L/cache timeout $left python3 bench/torch/check_loads.py --out $L --timeout $(( left - 20 )) > $L/loads.log 2>&1; echo "loads rc=$? $(( $(date +%s)-t0 ))s"
grep -E "request|PASS|FAIL|drains" $L/loads.log | cut -c1-300 | tail -8
rm -rf $L/cache
gzip -f $L/*.log
cd $OUT && tar czf a.tgz a && rm -rf a
