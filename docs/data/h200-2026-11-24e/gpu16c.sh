#!/usr/bin/env bash
# Sixteenth session, call C: the stream pool. GPU tests (exactly_once with
# the "resumed under a sync" case, runtime_hostile with "two private
# streams"), the MLP training check, the create probe.
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
L=$OUT/c; mkdir -p $L
nvcc -O2 -arch=sm_90 bench/launch_chain_probe/create_probe.cu -lcuda -o /tmp/create_probe
for c in 32 8; do CUDA_DEVICE_MAX_CONNECTIONS=$c timeout 40 /tmp/create_probe; done > $L/create_probe.log 2>&1
cat $L/create_probe.log
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$PWD/.deps > /dev/null 2>&1 && cmake --build build-gpu -j16 > $L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
(cd build-gpu && timeout 420 ctest -R 'gpu\.|variants_gpu' --output-on-failure > $L/ctest.log 2>&1); echo "ctest rc=$? ($(( $(date +%s)-t0 ))s)"
grep -E "tests passed|Test +#|Failed|resumed under" $L/ctest.log | tail -25
grep -h -E "resumed under|private streams|child: " build-gpu/Testing/Temporary/LastTest.log | head -20
cp build-gpu/Testing/Temporary/LastTest.log $L/
timeout 60 python3 bench/colocation/check_train.py $PWD/build-scratch/coloc/libbaton_train_mlp.so > $L/check_train.log 2>&1; echo "check_train rc=$?"; tail -3 $L/check_train.log
cd $OUT && tar czf c.tgz c; echo "total $(( $(date +%s)-t0 ))s"
