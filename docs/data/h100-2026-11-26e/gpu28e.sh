#!/usr/bin/env bash
# Twenty-eighth session, call e (H100): one-wave slices of the LM-head
# matmul on main with slices retired off their stream took 4.83x in one
# round of call a and 2.68x in the other. Is it the slices' two streams
# landing on one hardware queue? variant_overhead_runtime on that shape,
# six rounds each with CUDA_DEVICE_MAX_CONNECTIONS unset (8 queues) and 32,
# interleaved.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/e; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
t0=$(date +%s)
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu --target variant_overhead_runtime baton-ptx) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
X=build-gpu/xformed-e
BATON_FIT_REGISTERS=sm_90 scripts/transform-tree.sh build-gpu/tools/baton-ptx/baton-ptx $X/triton test/corpus/triton > $L/transform.log 2>&1
grep -v '^#' bench/manifests/matmul-sizes.txt | head -1 > $L/lm.txt
for r in 1 2 3 4 5 6; do
  for c in 8 32; do
    left=$(( 300 - ($(date +%s)-t0) )); [ $left -gt 20 ] || break 2
    if [ $c = 8 ]; then e=(env -u CUDA_DEVICE_MAX_CONNECTIONS); else e=(env CUDA_DEVICE_MAX_CONNECTIONS=32); fi
    "${e[@]}" timeout $left build-gpu/bench/runtime/variant_overhead_runtime $L/lm.txt $X 5 > $L/vo-$c-$r.log 2>&1
    echo "round $r queues $c: $(grep matmul_kernel $L/vo-$c-$r.log | tr -s ' ' | cut -d' ' -f3-7)"
  done
done
cd $OUT && tar czf e.tgz e && rm -rf e
