#!/usr/bin/env bash
# Eighteenth session: fresh task slots (no task copy): GPU tests, launch_chain before/after, training alone.
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
L=$OUT/a; mkdir -p $L
git log --oneline -1 > $L/commit.txt; git diff --stat >> $L/commit.txt
bash build-scratch/gpu16j.sh > $L/ctest-summary.txt 2>&1; tail -4 $L/ctest-summary.txt; cp $OUT/j/ctest.log $L/; rm -rf $OUT/j
grep -h -E "repeated shapes" build-gpu/Testing/Temporary/LastTest.log
(cmake -S build-scratch/base -B build-base -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$PWD/.deps > /dev/null 2>&1 && cmake --build build-base -j16 --target launch_chain baton-ptx > $L/base-build.log 2>&1) || { tail -20 $L/base-build.log; }
build-gpu/tools/baton-ptx/baton-ptx test/gpu/kernels/record.ptx -o /tmp/record.ptx
for i in 1 2; do
  echo "== base $i" >> $L/launch_chain.log; timeout 60 build-base/bench/runtime/launch_chain /tmp/record.ptx 400 >> $L/launch_chain.log 2>&1
  echo "== new $i" >> $L/launch_chain.log; timeout 60 build-gpu/bench/runtime/launch_chain /tmp/record.ptx 400 >> $L/launch_chain.log 2>&1
done
echo "launch_chain $(( $(date +%s)-t0 ))s"; grep -E "==|scheduled" $L/launch_chain.log
cmake -S . -B build-torch -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) > $L/tbuild.log 2>&1 && cmake --build build-torch -j16 --target baton_python >> $L/tbuild.log 2>&1 || { tail -20 $L/tbuild.log; exit 1; }
export PYTHONPATH=$PWD/build-torch/python BATON_CACHE_DIR=$PWD/build-scratch/bcache
left=$(( 590 - ($(date +%s)-t0) ))
timeout $left python3 bench/torch/route_threshold.py --scale large --thresholds 100 --seconds 5 > $L/rt-large.log 2>&1; echo "rt rc=$? $(( $(date +%s)-t0 ))s"
tail -4 $L/rt-large.log
cd $OUT && tar czf a.tgz a && rm -rf a
