#!/usr/bin/env bash
# Fortieth session, call g: the corpus checks on the tree that refuses PTB
# for recursive callees and corrects the plugin's inline-asm
# %dynamic_smem_size (calls a-c hung in recursive_fib's PTB variant and
# failed the plugin's dynamic_smem_size).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/g; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3)"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu --target baton-ptx corpus_check variant_check) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
timeout $(( 560 - ($(date +%s)-t0) )) ctest --test-dir build-gpu -R 'variants_gpu|gpu\.transform-corpus|gpu\.corpus_check' --output-on-failure > $L/ctest.log 2>&1; echo "ctest rc=$? $(( $(date +%s)-t0 ))s"
grep -E "tests passed|Failed|\*\*\*Timeout|Passed" $L/ctest.log | head -10
grep -E 'calls\.ptx|grids\.ptx +morton|FAIL|passed' $L/ctest.log | head -40
gzip -f $L/ctest.log
cd $OUT && tar czf g.tgz g && rm -rf g
