#!/usr/bin/env bash
# Twenty-fourth session, call g: a BE queue bounded in the scheduler service.
# GPU tests with the bound (scheduler_check's new deep-queue round); the same
# scheduler_check built from HEAD's runtime (no bound), expected to hang;
# check_train with the split MLP (built here with the plugin and the bound).
set -u
cd "$(dirname "$0")/.."
R=$PWD; L=$OUT/g; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
t0=$(date +%s)
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include > $L/cfg.log 2>&1
cmake --build build-gpu > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
echo "build: $(( $(date +%s)-t0 )) s"
timeout 420 ctest --test-dir build-gpu -R 'gpu\.|variants_gpu' --output-on-failure > $L/ctest.log 2>&1; echo "ctest rc=$? $(( $(date +%s)-t0 )) s"
grep -E 'tests passed|Failed|\*\*\*|Skipped' $L/ctest.log | head -20; grep -E 'deep queue' $L/ctest.log
LIB=$R/build-scratch/coloc/libbaton_train_mlp.so
timeout 240 python3 bench/colocation/check_train.py $LIB > $L/check_train.log 2>&1; echo "check_train rc=$? $(( $(date +%s)-t0 )) s"
grep -E 'split\(s\), (off|time|space) \(|FAIL|failed' $L/check_train.log | cut -c1-120
# HEAD's runtime with the new test: expected to hang in the deep-queue round.
rm -rf /tmp/headwt; git worktree add -f /tmp/headwt HEAD > /dev/null 2>&1
cp test/gpu/scheduler_check.cpp /tmp/headwt/test/gpu/
cmake -S /tmp/headwt -B /tmp/headwt/b -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include > $L/cfg-head.log 2>&1
cmake --build /tmp/headwt/b --target scheduler_check baton-ptx > $L/build-head.log 2>&1 || { tail -20 $L/build-head.log; }
left=$(( 580 - ($(date +%s)-t0) ))
cmd=$(grep -A3 'gpu.scheduler_check' build-gpu/test/gpu/CTestTestfile.cmake | grep -o '"[^"]*record[^"]*"' | head -1 | tr -d '"')
echo "record ptx: $cmd"
[ $left -gt 60 ] && { timeout $left /tmp/headwt/b/test/gpu/scheduler_check $cmd > $L/head-scheduler_check.log 2>&1; echo "HEAD scheduler_check rc=$? $(( $(date +%s)-t0 )) s"; tail -4 $L/head-scheduler_check.log; }
cd $OUT && tar czf g.tgz g && rm -rf g
