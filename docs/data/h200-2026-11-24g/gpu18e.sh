#!/usr/bin/env bash
# Eighteenth session: GPU tests and the torch loss check on the commit with fresh task slots.
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
L=$OUT/e; mkdir -p $L
git log --oneline -1 > $L/commit.txt
bash build-scratch/gpu16j.sh > $L/ctest-summary.txt 2>&1; tail -4 $L/ctest-summary.txt; cp $OUT/j/ctest.log $L/; rm -rf $OUT/j
grep -h -E "repeated shapes" build-gpu/Testing/Temporary/LastTest.log
cmake -S . -B build-torch -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) > $L/tbuild.log 2>&1 && cmake --build build-torch -j16 --target baton_python >> $L/tbuild.log 2>&1 || { tail -20 $L/tbuild.log; exit 1; }
left=$(( 590 - ($(date +%s)-t0) ))
OUT=$L/torch timeout $left bench/torch/run.sh check > $L/torch-check.log 2>&1; echo "torch check rc=$? ($(( $(date +%s)-t0 ))s)"
tail -22 $L/torch-check.log
cd $OUT && tar czf e.tgz e && rm -rf e
