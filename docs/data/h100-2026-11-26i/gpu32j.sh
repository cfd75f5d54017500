#!/usr/bin/env bash
# Thirty-second session, call j: baton.torch's variant binding (Router::bind,
# Router::bindImage) now loads modules under SchedulerService::holdBestEffort
# (new): best-effort submits held back and none of it left on the device,
# so no stream waits on a word only the host can release while the module
# loads (call i's module_probe: such a load never returns). check_ops.py
# twice with the registry on (call h hung there), then the GPU tests and
# the runtime's CPU tests of the tree.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/j; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
t0=$(date +%s)
(cmake -S . -B build-torch -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF \
   -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) \
   -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DCLI11_INCLUDE_DIR=$R/.deps &&
 cmake --build build-torch --target baton_python) > $L/build-torch.log 2>&1 || { tail -20 $L/build-torch.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
export PYTHONPATH=$R/build-torch/python
for i in 1 2; do
  BATON_CACHE_DIR=$L/cache$i timeout -s ABRT 200 python3 -X faulthandler bench/torch/check_ops.py --out $L --budget 150 --case-timeout 60 > $L/ops$i.log 2>&1; echo "ops run $i rc=$? $(( $(date +%s)-t0 ))s"
  sed -n '/==== check_ops summary/,$p' $L/ops$i.log | grep -vE ": PASS: " | cut -c1-200
  grep -E "Timeout|line 3[0-9][0-9] in _prepare" $L/ops$i.log | head -3
  rm -rf $L/cache$i
done
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
left=$(( 585 - ($(date +%s)-t0) ))
timeout $left ctest --test-dir build-gpu -R 'gpu\.|variants_gpu|SchedulerService' -E 'preload_cub' > $L/ctest.log 2>&1; echo "ctest rc=$? $(( $(date +%s)-t0 ))s"
grep -E "tests passed|Failed|\*\*\*Timeout" $L/ctest.log | head -10
gzip -f $L/*.log
cd $OUT && tar czf j.tgz j && rm -rf j
