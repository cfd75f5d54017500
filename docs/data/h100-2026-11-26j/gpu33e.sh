#!/usr/bin/env bash
# Thirty-third session, call e: check_loads.py with latency-critical
# functions of Triton kernels only (a first cuBLAS call on the LC thread
# hung in call d), BATON_TRACE on; then check_graphs.py's lc-trees.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/e; mkdir -p $L
t0=$(date +%s)
(cmake -S . -B build-torch -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF \
   -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) \
   -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DCLI11_INCLUDE_DIR=$R/.deps &&
 cmake --build build-torch --target baton_python) > $L/build-torch.log 2>&1 || { tail -20 $L/build-torch.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
export PYTHONPATH=$R/build-torch/python
BATON_TRACE=1 BATON_CACHE_DIR=$L/cache timeout 230 python3 bench/torch/check_loads.py --out $L --timeout 200 > $L/loads.log 2> $L/trace.log; echo "loads rc=$? $(( $(date +%s)-t0 ))s"
grep -E "request|PASS|FAIL|baton:" $L/loads.log $L/trace.log | cut -c1-250 | tail -10
grep -o '"scheduler": {[^}]*}' $L/loads.log | head -2
grep -E "draining|expired|begin external|end external|peers" $L/trace.log | cut -c1-160 | tail -12
BATON_CACHE_DIR=$L/cache timeout 150 python3 bench/torch/check_graphs.py --scenarios lc-trees --out $L --timeout 140 > $L/graphs.log 2>&1; echo "graphs rc=$? $(( $(date +%s)-t0 ))s"
tail -1 $L/graphs.log
rm -rf $L/cache
gzip -f $L/*.log
cd $OUT && tar czf e.tgz e && rm -rf e
