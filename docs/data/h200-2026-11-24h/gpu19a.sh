#!/usr/bin/env bash
# Nineteenth session: GPU tests (share_check with the 20 ms request), then
# the claim-order experiment: mm_t_* PTB variants whose first block is %ctaid.x.
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
L=$OUT/a; mkdir -p $L
git log --oneline -1 > $L/commit.txt; git diff > $L/experiment.diff
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$PWD/.deps > /dev/null 2>&1 && cmake --build build-gpu -j16 > $L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
(cd build-gpu && timeout 200 ctest -R 'gpu\.|variants_gpu' --output-on-failure > $L/ctest.log 2>&1); echo "ctest rc=$? ($(( $(date +%s)-t0 ))s)"
grep -E "tests passed|Failed" $L/ctest.log | tail -4
cmake -S . -B build-torch -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) > $L/tbuild.log 2>&1 && cmake --build build-torch -j16 --target baton_python >> $L/tbuild.log 2>&1 || { tail -20 $L/tbuild.log; exit 1; }
export PYTHONPATH=$PWD/build-torch/python BATON_CACHE_DIR=/tmp/bcache-exp
rm -rf /tmp/bcache-exp
left=$(( 590 - ($(date +%s)-t0) ))
BATON_EXP_CTAID_FIRST=mm_t_ timeout $left python3 build-scratch/ktime.py --scale large > $L/ktime-ctaid.log 2>&1; echo "ktime ctaid rc=$? $(( $(date +%s)-t0 ))s"
sed -n '/^device time/,$p' $L/ktime-ctaid.log | grep -E "device time|mm_t|kernel " | head -10
cd $OUT && tar czf a.tgz a && rm -rf a
