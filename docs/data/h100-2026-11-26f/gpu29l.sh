#!/usr/bin/env bash
# Twenty-ninth session, call l: main after exactly_once's reruns on other
# runtime options were folded into one helper (rerunCases): exactly_once
# again, verbose.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/l; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include"
(cmake -S . -B build-main $CFG && cmake --build build-main) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
timeout 200 ctest --test-dir build-main -R 'gpu\.exactly_once' -V > $L/ctest.log 2>&1; echo "ctest rc=$? $(( $(date +%s)-t0 ))s"
grep -E "tests passed|Failed|\*\*\*|Timeout" $L/ctest.log | head
grep -E "(ok|FAIL) .*(finalize|copy-engine)|passed, [0-9]+ failed" $L/ctest.log | head
cd $OUT && tar czf l.tgz l && rm -rf l
