#!/usr/bin/env bash
# Thirty-second session, call a: bench/torch/check_ops.py (new: 30 kinds of
# Inductor kernel, bitwise against nothing routed, routed and preempted)
# on a fresh machine, then check_graphs.py as the thirty-first session left
# it (not yet run on a GPU in that form).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/a; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
t0=$(date +%s)
cmake -S . -B build-torch -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF \
  -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) \
  -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DCLI11_INCLUDE_DIR=$R/.deps > $L/build.log 2>&1 &&
  cmake --build build-torch -j 16 --target baton_python >> $L/build.log 2>&1; echo "build rc=$? $(( $(date +%s)-t0 ))s"
export PYTHONPATH=$R/build-torch/python BATON_CACHE_DIR=$L/cache
timeout -s ABRT 380 python3 -X faulthandler bench/torch/check_ops.py --out $L --budget 330 > $L/ops.log 2>&1; echo "ops rc=$? $(( $(date +%s)-t0 ))s"
sed -n '/==== check_ops summary/,$p' $L/ops.log | cut -c1-240
left=$(( 585 - ($(date +%s)-t0) ))
if [ $left -gt 60 ]; then
  timeout -s ABRT $left python3 -X faulthandler bench/torch/check_graphs.py --out $L > $L/graphs.log 2>&1; echo "graphs rc=$? $(( $(date +%s)-t0 ))s"
  grep -E "PASS|FAIL|bracket_closed" $L/graphs.log | cut -c1-240 | tail -6
fi
rm -rf $L/cache
gzip -f $L/*.log
cd $OUT && tar czf a.tgz a && rm -rf a
