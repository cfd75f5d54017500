#!/usr/bin/env bash
# Eleventh session: read-ahead preempt flag + 1-D decode. GPU tests, variant
# overhead (C++, twice), preemption latency, the training loop's kernels.
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
L=$OUT/g; mkdir -p $L
nvidia-smi -L > $L/gpu.txt
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$PWD/.deps > $L/cfg.log 2>&1 && cmake --build build-gpu -j16 > $L/build.log 2>&1 || { tail -30 $L/cfg.log $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
timeout 240 ctest --test-dir build-gpu -R 'gpu\.|variants_gpu' --output-on-failure > $L/ctest-gpu.log 2>&1
grep -E "tests passed|tests failed|\*\*\*Failed|Timeout" $L/ctest-gpu.log | tail -8
echo "ctest $(( $(date +%s)-t0 ))s"
x=build-gpu/xformed-bench
scripts/transform-tree.sh build-gpu/tools/baton-ptx/baton-ptx $x test/corpus test/variants-gpu > /dev/null 2>&1
for r in 1 2; do
  timeout 120 build-gpu/bench/variant_overhead $x bench/manifests/training-sizes.txt test/corpus/triton-manifest.txt > $L/variant_overhead-$r.log 2>&1
  tail -1 $L/variant_overhead-$r.log
done
timeout 120 build-gpu/bench/preempt_latency $x/kernels/blocks.ptx 200 > $L/preempt_latency.log 2>&1; cat $L/preempt_latency.log | head -12
echo "c++ $(( $(date +%s)-t0 ))s"
cmake -S . -B build-torch -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) > $L/cfg-torch.log 2>&1 && cmake --build build-torch -j16 --target baton_python > $L/build-torch.log 2>&1 || { tail $L/build-torch.log; exit 1; }
export PYTHONPATH=$PWD/build-torch/python BATON_CACHE_DIR=$HOME/.cache/baton CUDA_MODULE_LOADING=EAGER CUDA_DEVICE_MAX_CONNECTIONS=32
left=$(( 570 - ($(date +%s)-t0) ))
timeout $left python3 bench/torch/variant_overhead.py --scale large 2>$L/vo.err > $L/variant_overhead-large.log
grep -E "geometric|weighted" $L/variant_overhead-large.log | head -3; tail -2 $L/vo.err
cd $OUT && tar czf g.tgz g && rm -rf g
echo "total $(( $(date +%s)-t0 ))s"
