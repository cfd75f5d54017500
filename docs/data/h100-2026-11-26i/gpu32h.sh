#!/usr/bin/env bash
# Thirty-second session, call h: the GPU tests and benchmarks read launch
# manifests through one reader (test/manifest, new), the variants-gpu
# harness and the runtime's tests alike. The GPU tests (variant_check and
# corpus_check run every manifest line through it); then check_ops.py
# with the registry of sharing processes on (its new default).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/h; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
t0=$(date +%s)
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
timeout 300 ctest --test-dir build-gpu -R 'gpu\.|variants_gpu' -E 'preload_cub' --output-on-failure > $L/ctest.log 2>&1; echo "ctest rc=$? $(( $(date +%s)-t0 ))s"
grep -E "tests passed|Failed|\*\*\*|Timeout" $L/ctest.log | head -20
cp build-gpu/Testing/Temporary/LastTest.log $L/ctest-full.log
grep -E "passed, [0-9]+ failed" $L/ctest-full.log | head -20
gzip -f $L/ctest-full.log
(cmake -S . -B build-torch -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF \
   -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) \
   -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DCLI11_INCLUDE_DIR=$R/.deps &&
 cmake --build build-torch --target baton_python) > $L/build-torch.log 2>&1 || { tail -20 $L/build-torch.log; exit 1; }
left=$(( 580 - ($(date +%s)-t0) ))
PYTHONPATH=$R/build-torch/python BATON_CACHE_DIR=$L/cache timeout -s ABRT $left python3 -X faulthandler bench/torch/check_ops.py --out $L --budget $(( left - 60 )) > $L/ops.log 2>&1; echo "ops rc=$? $(( $(date +%s)-t0 ))s"
sed -n '/==== check_ops summary/,$p' $L/ops.log | grep -vE ": PASS: " | cut -c1-240
rm -rf $L/cache
gzip -f $L/*.log
cd $OUT && tar czf h.tgz h && rm -rf h
