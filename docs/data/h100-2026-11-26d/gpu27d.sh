#!/usr/bin/env bash
# Twenty-seventh session, call d (H100): main's tree (the twenty-sixth
# session's final revert and takeMail change, not run on a GPU before) with
# this session's bench changes: GPU tests, SchedulerService and
# SchedulerSim tests, check_train with the colocation library built from it
# (build-scratch/coloc-27).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/d; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
t0=$(date +%s)
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include > $L/cfg.log 2>&1
cmake --build build-gpu > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
echo "build: $(( $(date +%s)-t0 )) s"
timeout 300 ctest --test-dir build-gpu -R 'gpu\.|variants_gpu|SchedulerService|SchedulerSim' --output-on-failure > $L/ctest.log 2>&1; echo "ctest rc=$? $(( $(date +%s)-t0 )) s"
grep -E 'tests passed|Failed|\*\*\*|Skipped' $L/ctest.log | head -20
timeout 120 python3 bench/colocation/check_train.py $R/build-scratch/coloc-27/libbaton_train_mlp.so > $L/check_train.log 2>&1; echo "check_train rc=$? $(( $(date +%s)-t0 )) s"
grep -E 'split\(s\), (off|time|space) \(|FAIL|failed' $L/check_train.log | cut -c1-120
cd $OUT && tar czf d.tgz d && rm -rf d
