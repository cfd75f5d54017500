#!/usr/bin/env bash
# Sixteenth session, last call: the committed tree. GPU tests, the MLP check,
# then the torch loss check (GPT, CNN) with what time is left.
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
L=$OUT/h; mkdir -p $L
git log --oneline -1 > $L/commit.txt
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$PWD/.deps > /dev/null 2>&1 && cmake --build build-gpu -j16 > $L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
(cd build-gpu && timeout 200 ctest -R 'gpu\.|variants_gpu' --output-on-failure > $L/ctest.log 2>&1); echo "ctest rc=$? ($(( $(date +%s)-t0 ))s)"
grep -E "tests passed|Failed" $L/ctest.log | tail -4
gzip -c build-gpu/Testing/Temporary/LastTest.log > $L/LastTest.log.gz
timeout 60 python3 bench/colocation/check_train.py $PWD/build-scratch/coloc/libbaton_train_mlp.so > $L/check_train.log 2>&1; echo "check_train rc=$?"; tail -1 $L/check_train.log
left=$(( 580 - ($(date +%s)-t0) ))
OUT=$L/torch timeout $left bench/torch/run.sh check > $L/torch-check.log 2>&1; echo "torch check rc=$? ($(( $(date +%s)-t0 ))s)"
tail -25 $L/torch-check.log
cd $OUT && tar czf h.tgz h; echo "total $(( $(date +%s)-t0 ))s"
