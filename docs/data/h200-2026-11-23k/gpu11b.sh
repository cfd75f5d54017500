#!/usr/bin/env bash
# Eleventh session, call 2: per-kernel variant overhead with and without
# register fitting (C++ bench, twice each, interleaved), logs in one tarball.
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
L=$OUT/vo11; mkdir -p $L
nvidia-smi -L > $L/gpu.txt
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$PWD/.deps > $L/cfg.log 2>&1 && cmake --build build-gpu -j16 --target baton-ptx variant_overhead > $L/build.log 2>&1 || { tail -30 $L/cfg.log $L/build.log; exit 1; }
for mode in free fit; do
  x=build-gpu/xformed-$mode
  if [ $mode = fit ]; then export BATON_FIT_REGISTERS=sm_90; else unset BATON_FIT_REGISTERS; fi
  scripts/transform-tree.sh build-gpu/tools/baton-ptx/baton-ptx $x test/corpus > $L/transform-$mode.log 2>&1
  unset BATON_FIT_REGISTERS
  /usr/local/cuda/bin/ptxas -arch=sm_90a -v $x/triton/vector_add.ptx -o /dev/null > $L/ptxas-vector_add-$mode.txt 2>&1
done
for rep in 1 2; do for mode in free fit; do
  timeout 120 build-gpu/bench/variant_overhead build-gpu/xformed-$mode bench/manifests/training-sizes.txt test/corpus/triton-manifest.txt > $L/vo-$mode-$rep.log 2>&1
  echo "$mode $rep: $(tail -1 $L/vo-$mode-$rep.log)"
done; done
cd $OUT && tar czf vo11.tgz vo11 && rm -rf vo11; echo "total $(( $(date +%s)-t0 ))s"
