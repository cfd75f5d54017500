#!/usr/bin/env bash
# Thirty-second session, call l: the launch shim's lazy variants and the
# interposer's side modules load under LaunchRouter::holdForModuleLoad
# (bounded); baton.torch's binding gives up after the same bound. The GPU
# tests (the preload tests run the interposer) and the runtime's unit
# tests, then check_graphs.py and check_ops.py's first cases.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/l; mkdir -p $L
t0=$(date +%s)
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
timeout 300 ctest --test-dir build-gpu -R 'gpu\.|variants_gpu|SchedulerService' -E 'preload_cub' > $L/ctest.log 2>&1; echo "ctest rc=$? $(( $(date +%s)-t0 ))s"
grep -E "tests passed|Failed|\*\*\*Timeout" $L/ctest.log | head -10
(cmake -S . -B build-torch -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF \
   -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) \
   -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DCLI11_INCLUDE_DIR=$R/.deps &&
 cmake --build build-torch --target baton_python) > $L/build-torch.log 2>&1 || { tail -20 $L/build-torch.log; exit 1; }
export PYTHONPATH=$R/build-torch/python
left=$(( 560 - ($(date +%s)-t0) ))
BATON_CACHE_DIR=$L/cache timeout -s ABRT $left python3 -X faulthandler bench/torch/check_ops.py --out $L --budget $(( left - 40 )) --case-timeout 60 > $L/ops.log 2>&1; echo "ops rc=$? $(( $(date +%s)-t0 ))s"
sed -n '/==== check_ops summary/,$p' $L/ops.log | tail -1
rm -rf $L/cache
gzip -f $L/*.log
cd $OUT && tar czf l.tgz l && rm -rf l
