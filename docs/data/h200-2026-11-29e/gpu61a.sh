#!/usr/bin/env bash
# Sixty-first session, call a (an H200): PTB variants whose threads take
# their worker's first share themselves (no slot read after the barrier, no
# leader fetch before it), against main's form. The colocation MLP step's
# kernels (clang -O3 PTX through baton-ptx: old = main's baton-ptx, new =
# this tree's, newfit = new with --fit-registers sm_90a), variant_overhead
# alternated old/new/newfit, three rounds; then the GPU tests of the tree
# (the PTB variants of the equivalence and exactly-once suites are built by
# this tree's baton-ptx). The three PTX trees under ptx/ (not kept: made
# here and carried) were
#   clang++-22 -x cuda --cuda-gpu-arch=sm_90a --cuda-device-only -S -O3 \
#     bench/colocation/train_mlp.cu -o orig.ptx   (+ BatonCuda.cmake's flags)
#   baton-ptx orig.ptx -o ptx/{old,new}/mlp/train_mlp.ptx  (main's; patched)
#   baton-ptx orig.ptx --fit-registers sm_90a -o ptx/newfit/mlp/train_mlp.ptx
# with local_share.patch applied for new and newfit.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; D=$R/docs/data/h200-2026-11-29e; L=$OUT/a; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $L/gpu.txt
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3)"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu) > $L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
for f in old new; do
  ptxas -arch=sm_90a $D/ptx/$f/mlp/train_mlp.ptx -o $L/$f.cubin && \
  cuobjdump -sass -fun '_ZN12_GLOBAL__N_19bias_geluEPfPKfS0_ii__baton_ptb' $L/$f.cubin > $L/$f-bias_gelu-ptb.sass 2>&1
  rm -f $L/$f.cubin
done
for r in 1 2 3; do
  for f in old new newfit; do
    timeout 60 build-gpu/bench/variant_overhead $D/ptx/$f bench/manifests/colocation-mlp.txt > $L/$f$r.txt 2>&1
    echo "$f $r rc=$? $(( $(date +%s)-t0 ))s $(grep geometric $L/$f$r.txt)"
  done
done
for f in old new newfit; do
  echo "== $f (kernel: p-runs by round)"
  for r in 1 2 3; do awk '/^mlp\//{printf "%s %s | ", substr($2,20,12), $NF}' $L/$f$r.txt; echo; done
done
timeout 300 ctest --test-dir build-gpu -R 'gpu\.|variants_gpu|Scheduler|ClaimsOf' -E 'gpu\.preload|gpu\.torch|python' --output-on-failure > $L/ctest.log 2>&1
echo "ctest rc=$? $(( $(date +%s)-t0 ))s"
grep -E "tests passed|FAIL|\*\*\*Timeout|Not Run|checks, " $L/ctest.log | head -14
gzip -f $L/ctest.log
cd $OUT && tar czf a.tgz a && rm -rf a
