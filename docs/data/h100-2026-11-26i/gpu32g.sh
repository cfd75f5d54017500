#!/usr/bin/env bash
# Thirty-second session, call g: stall_hunt.py (gpt-dyn's preempted phase,
# 1500 rounds in one process, a stack dump if a round passes 60 s), on a
# fresh machine.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/g; mkdir -p $L
t0=$(date +%s)
cmake -S . -B build-torch -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF \
  -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) \
  -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DCLI11_INCLUDE_DIR=$R/.deps > $L/build.log 2>&1 &&
  cmake --build build-torch -j 16 --target baton_python >> $L/build.log 2>&1; echo "build rc=$? $(( $(date +%s)-t0 ))s"
export PYTHONPATH=$R/build-torch/python BATON_CACHE_DIR=$L/cache
timeout -s ABRT 420 python3 -X faulthandler docs/data/h100-2026-11-26i/stall_hunt.py 1500 > $L/hunt.log 2>&1; echo "hunt rc=$? $(( $(date +%s)-t0 ))s"
grep -E "^round|rounds in|variants" $L/hunt.log | awk '{print}' | tail -4
grep -c "== reference" $L/hunt.log
grep -E "Thread|File" $L/hunt.log | head -40
rm -rf $L/cache
gzip -f $L/*.log
cd $OUT && tar czf g.tgz g && rm -rf g
