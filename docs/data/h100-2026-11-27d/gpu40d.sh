#!/usr/bin/env bash
# Fortieth session, call d: why recursive_fib's PTB variant hangs (calls.cu,
# every compiler; call c), and what the clang plugin's dynamic_smem_size
# gets wrong. Builds only baton-ptx and the two checkers, runs each of
# corpus_check's runs alone with a timeout, on the module as transformed
# and with its `call.uni` spelled `call`, and keeps the SASS.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/d; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3)"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu --target baton-ptx corpus_check variant_check) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
X=$L/x; scripts/transform-tree.sh build-gpu/tools/baton-ptx/baton-ptx $X test/corpus > $L/transform.log 2>&1
for c in nvcc clang; do
  mkdir -p $L/nouni/$c; sed 's/call\.uni/call/g' $X/$c/calls.ptx > $L/nouni/$c/calls.ptx
done
CC=build-gpu/test/gpu/corpus_check
for dir in $X $L/nouni; do
  for run in slices ptb:all ptb:3 ptb:2; do
    for c in nvcc clang; do
      grep -E "^$c/calls\.ptx recursive_fib" test/corpus/manifest.txt > $L/one.txt
      timeout 20 $CC $L/one.txt $dir recursive_fib $run > $L/one.log 2>&1; rc=$?
      echo "rc=$rc $(basename $dir) $c $run | $(grep -E 'PASS|FAIL' $L/one.log | head -2 | tr '\n' ' ' | cut -c1-220)"
    done
  done
done | tee $L/fib.txt
grep -E '^clang-plugin/calls\.ptx dynamic_smem_size' test/corpus/manifest.txt > $L/one.txt
timeout 60 $CC $L/one.txt $X dynamic_smem_size > $L/dsmem-corpus.log 2>&1; echo "dsmem corpus_check rc=$?"; cat $L/dsmem-corpus.log | head -5
timeout 60 build-gpu/test/variants-gpu/variant_check $X $L/one.txt > $L/dsmem-variant.log 2>&1; echo "dsmem variant_check rc=$?"; grep -v '^ok' $L/dsmem-variant.log | head -12
if command -v cuobjdump >/dev/null || [ -x /usr/local/cuda/bin/cuobjdump ]; then
  P=$PATH:/usr/local/cuda/bin
  PATH=$P ptxas -arch=sm_90a $X/nvcc/calls.ptx -o $L/calls.cubin 2>&1 | head -3
  PATH=$P cuobjdump -sass $L/calls.cubin > $L/calls.sass 2>&1; echo "sass $(wc -l < $L/calls.sass) lines"
fi
cp $X/nvcc/calls.ptx $L/calls-nvcc-xformed.ptx; rm -rf $X
echo "done $(( $(date +%s)-t0 ))s"
cd $OUT && tar czf d.tgz d && rm -rf d
