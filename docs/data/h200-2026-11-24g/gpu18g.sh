#!/usr/bin/env bash
# Eighteenth session: finalize publishes done before its report: GPU tests, training alone twice.
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
L=$OUT/g; mkdir -p $L
git log --oneline -1 > $L/commit.txt; git diff --stat >> $L/commit.txt
bash build-scratch/gpu16j.sh > $L/ctest-summary.txt 2>&1; tail -4 $L/ctest-summary.txt; cp $OUT/j/ctest.log $L/; rm -rf $OUT/j
grep -h -E "repeated shapes" build-gpu/Testing/Temporary/LastTest.log
cmake -S . -B build-torch -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) > $L/tbuild.log 2>&1 && cmake --build build-torch -j16 --target baton_python >> $L/tbuild.log 2>&1 || { tail -20 $L/tbuild.log; exit 1; }
export PYTHONPATH=$PWD/build-torch/python BATON_CACHE_DIR=$PWD/build-scratch/bcache
for i in 1 2; do
left=$(( 590 - ($(date +%s)-t0) ))
[ $left -gt 60 ] || break
timeout $left python3 bench/torch/route_threshold.py --scale large --thresholds 100 --seconds 5 > $L/rt-large-$i.log 2>&1; echo "rt $i rc=$? $(( $(date +%s)-t0 ))s"
tail -3 $L/rt-large-$i.log
done
cd $OUT && tar czf g.tgz g && rm -rf g
