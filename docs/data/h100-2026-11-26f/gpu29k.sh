#!/usr/bin/env bash
# Twenty-ninth session, call k: branch claim-one-atomic (task ABI 5),
# exactly_once with its copy-engine-flag cases (a 32-bit copy or memset of
# `preempt`, the high half of the word the claims add to).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/k; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include"
(cmake -S . -B build-abi5 $CFG && cmake --build build-abi5) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
timeout 200 ctest --test-dir build-abi5 -R 'gpu\.exactly_once' -V > $L/ctest.log 2>&1; echo "ctest rc=$? $(( $(date +%s)-t0 ))s"
grep -E "tests passed|Failed|\*\*\*|Timeout" $L/ctest.log | head
grep -E "^(ok|FAIL) |passed, [0-9]+ failed" $L/ctest.log | head -30
cd $OUT && tar czf k.tgz k && rm -rf k
