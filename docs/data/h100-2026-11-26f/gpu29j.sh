#!/usr/bin/env bash
# Twenty-ninth session, call j: main (task ABI 4) with exactly_once's new
# copy-engine-flag cases (RuntimeOptions::Signal = Memcpy: the flag raised
# by a pinned-word copy or a memset instead of a stream memory operation),
# then the rest of the GPU tests.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/j; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include"
(cmake -S . -B build-main $CFG && cmake --build build-main) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
timeout 300 ctest --test-dir build-main -R 'gpu\.|variants_gpu' --output-on-failure > $L/ctest.log 2>&1; echo "ctest rc=$? $(( $(date +%s)-t0 ))s"
grep -E "tests passed|Failed|\*\*\*|Timeout" $L/ctest.log | head
cp build-main/Testing/Temporary/LastTest.log $L/ctest-full.log; gzip -f $L/ctest-full.log
zgrep -E "^(ok|FAIL) .*(copy-engine|all workers|vacate storm)|passed, [0-9]+ failed" $L/ctest-full.log.gz | head -30
cd $OUT && tar czf j.tgz j && rm -rf j
