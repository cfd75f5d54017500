#!/usr/bin/env bash
# Thirty-fourth session, call b: enable("latency-critical")'s warm-up now
# runs with routed work held back (call a: its first cuDNN call, unheld,
# hung next to routed training). check_loads.py, both scenarios; then
# lc-library with the warm-up off (BATON_LC_WARM_UP=0: the thread's first
# cuBLAS call inside its bracket, as in the thirty-third session's call d);
# then check_graphs.py (the automatic bracket's renewal rule of 92bf117).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/b; mkdir -p $L
t0=$(date +%s)
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3) -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF"
(cmake -S . -B build-torch $CFG && cmake --build build-torch --target baton_python) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
export PYTHONPATH=$R/build-torch/python
run() { # name timeout args...
  local n=$1 t=$2; shift 2
  BATON_CACHE_DIR=$L/cache timeout $(( t + 20 )) python3 "$@" --out $L/$n --timeout $t > $L/$n.log 2>&1; echo "$n rc=$? $(( $(date +%s)-t0 ))s"
  grep -E "request|PASS|FAIL|Timeout|hold|drain" $L/$n.log | grep -v "^  File" | cut -c1-200 | tail -12
  grep -ho '"scheduler": {[^}]*}' $L/$n.log | cut -c1-400
}
run loads 150 bench/torch/check_loads.py
BATON_LC_WARM_UP=0 run loads-nowarm 100 bench/torch/check_loads.py --scenarios lc-library
run graphs 150 bench/torch/check_graphs.py
rm -rf $L/cache
gzip -f $L/*.log
cd $OUT && tar czf b.tgz b && rm -rf b
