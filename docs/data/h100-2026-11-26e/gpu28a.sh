#!/usr/bin/env bash
# Next session (H100): branch slices-retire-off-stream (form 1) against main,
# run from the branch's tree: GPU tests of the branch, then
# variant_overhead_runtime (slice column) for both trees, interleaved, on
# the training sizes and the first two matmul shapes. main is the branch
# with build-scratch/slice-form1.patch (git diff main -- lib include)
# reversed. Usage: bash build-scratch/gpu28-slices.sh (carry .deps and
# build-scratch).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/slices; mkdir -p $L
P=build-scratch/slice-form1.patch
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
t0=$(date +%s)
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
echo "build branch: $(( $(date +%s)-t0 )) s"
(patch -R -p1 < $P > /dev/null || git apply -R $P) && (cmake -S . -B build-old $CFG && cmake --build build-old --target variant_overhead_runtime) > $L/build-old.log 2>&1 || { tail -20 $L/build-old.log; exit 1; }
patch -p1 < $P > /dev/null || git apply $P
echo "build main: $(( $(date +%s)-t0 )) s"
timeout 150 ctest --test-dir build-gpu -R 'gpu\.' --output-on-failure > $L/ctest.log 2>&1; echo "ctest rc=$? $(( $(date +%s)-t0 )) s"
grep -E 'tests passed|Failed|\*\*\*|Skipped' $L/ctest.log | head -20
X=build-gpu/xformed-vo
BATON_FIT_REGISTERS=sm_90 scripts/transform-tree.sh build-gpu/tools/baton-ptx/baton-ptx $X/triton test/corpus/triton > $L/transform.log 2>&1
scripts/transform-tree.sh build-gpu/tools/baton-ptx/baton-ptx $X/nvcc test/corpus/nvcc >> $L/transform.log 2>&1
head -10 bench/manifests/matmul-sizes.txt | grep -v '^#' | head -2 > /tmp/mm2.txt; cp /tmp/mm2.txt bench/manifests/mm2.txt
for t in old new old new; do
  left=$(( 270 - ($(date +%s)-t0) )); [ $left -gt 20 ] || break
  b=build-gpu; [ $t = old ] && b=build-old
  timeout $left $b/bench/runtime/variant_overhead_runtime bench/manifests/training-sizes.txt $X 10 >> $L/vo-$t.log 2>&1
  timeout 40 $b/bench/runtime/variant_overhead_runtime bench/manifests/mm2.txt $X 5 >> $L/vo-$t.log 2>&1
  echo "vo $t $(( $(date +%s)-t0 )) s"
done
for t in old new; do echo "== $t"; grep -v '^variant_overhead on' $L/vo-$t.log | cut -c1-110; done
cd $OUT && tar czf slices.tgz slices && rm -rf slices
