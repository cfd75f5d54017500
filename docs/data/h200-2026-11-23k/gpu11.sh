#!/usr/bin/env bash
# Eleventh session, call 1: GPU tests on register-fitted variants, variant
# overhead with and without fitting (C++), and the training loop's kernels.
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
nvidia-smi -L > $OUT/gpu.txt
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$PWD/.deps > $OUT/cfg.log 2>&1 && cmake --build build-gpu -j16 > $OUT/build.log 2>&1 || { tail -30 $OUT/cfg.log $OUT/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
BATON_FIT_REGISTERS=sm_90 timeout 240 ctest --test-dir build-gpu -R 'gpu\.|variants_gpu' --output-on-failure > $OUT/ctest-gpu.log 2>&1
grep -E "tests passed|tests failed|\*\*\*Failed|Passed|Timeout" $OUT/ctest-gpu.log | tail -16
grep -c "maxnreg" build-gpu/test/variants-gpu/xformed/corpus/triton/vector_add.ptx 2>/dev/null | sed 's/^/maxnreg lines in ctest vector_add: /'
echo "ctest $(( $(date +%s)-t0 ))s"
for mode in free fit; do
  x=build-gpu/xformed-$mode
  if [ $mode = fit ]; then export BATON_FIT_REGISTERS=sm_90; else unset BATON_FIT_REGISTERS; fi
  scripts/transform-tree.sh build-gpu/tools/baton-ptx/baton-ptx $x test/corpus > $OUT/transform-$mode.log 2>&1
  unset BATON_FIT_REGISTERS
  timeout 120 build-gpu/bench/variant_overhead $x bench/manifests/training-sizes.txt test/corpus/triton-manifest.txt > $OUT/variant_overhead-$mode.log 2>&1
  echo "--- $mode"; tail -4 $OUT/variant_overhead-$mode.log
done
echo "vo-c++ $(( $(date +%s)-t0 ))s"
cmake -S . -B build-torch -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) > $OUT/cfg-torch.log 2>&1 && cmake --build build-torch -j16 --target baton_python > $OUT/build-torch.log 2>&1 || { tail $OUT/build-torch.log; exit 1; }
export PYTHONPATH=$PWD/build-torch/python BATON_CACHE_DIR=$HOME/.cache/baton CUDA_MODULE_LOADING=EAGER CUDA_DEVICE_MAX_CONNECTIONS=32
for fit in 1 0; do
  left=$(( 585 - ($(date +%s)-t0) ))
  [ $left -lt 60 ] && break
  BATON_FIT_REGISTERS=$fit timeout $left python3 bench/torch/variant_overhead.py --scale large 2>$OUT/vo-fit$fit.err > $OUT/variant_overhead-large-fit$fit.log
  echo "--- torch large fit=$fit"; grep -E "geometric|weighted" $OUT/variant_overhead-large-fit$fit.log | head -4; tail -2 $OUT/vo-fit$fit.err
done
echo "total $(( $(date +%s)-t0 ))s"
