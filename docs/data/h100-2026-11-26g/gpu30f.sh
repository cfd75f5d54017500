#!/usr/bin/env bash
# Thirtieth session, call f: PTB variants now wait, at the end of each
# virtual block, for the thread's asynchronous copies into shared memory
# (cp.async.wait_all) and out of it (an empty bulk group committed, then
# cp.async.bulk.wait_group.read 0), where the kernel makes such copies.
#  1. The GPU tests on this tree (their corpus transforms carry the waits:
#     every Triton matmul and attention kernel, the TMA-store kernels).
#  2. What the wait costs the two LM-head-shaped products of issue 6 (the
#     corpus's Triton bf16 matmul and Inductor's template, 75,456 tiles
#     each): build-scratch/c30w, made on the CPU machine with this tree's
#     baton-ptx (`new`, BATON_FIT_REGISTERS=sm_90 scripts/transform-tree.sh)
#     and the same with the one inserted wait line removed (`old`, timing
#     only); variant_overhead_runtime, three rounds, interleaved.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; E=build-scratch/c30w; L=$OUT/f; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
t0=$(date +%s)
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
timeout 300 ctest --test-dir build-gpu -R 'gpu\.|variants_gpu' --output-on-failure > $L/ctest.log 2>&1; echo "ctest rc=$? $(( $(date +%s)-t0 ))s"
grep -E "tests passed|Failed|\*\*\*|Timeout" $L/ctest.log | head
cp build-gpu/Testing/Temporary/LastTest.log $L/ctest-full.log
grep -E "passed, [0-9]+ failed" $L/ctest-full.log | head -12
gzip -f $L/ctest-full.log
VO=build-gpu/bench/runtime/variant_overhead_runtime
for r in 1 2 3; do
  for v in old new; do
    left=$(( 560 - ($(date +%s)-t0) )); [ $left -gt 30 ] || break 2
    timeout $left $VO $E/manifest.txt $E/$v 5 >> $L/vo-$v.log 2>&1
    echo "round $r $v rc=$? $(( $(date +%s)-t0 ))s"
  done
done
for v in old new; do echo "== $v"; grep -v "^variant_overhead on\|^module\|geometric" $L/vo-$v.log | awk '{print $1, $3, $7}' | cut -c1-70; done
cd $OUT && tar czf f.tgz f && rm -rf f
