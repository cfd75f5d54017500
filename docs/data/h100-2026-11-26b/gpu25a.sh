#!/usr/bin/env bash
# Twenty-fifth session, call a (H100): the reviewed revision of the BE queue
# bound and the split MLP on a GPU: GPU tests, check_train (1 and 8 splits),
# bench/torch/run.sh check (five models, the stricter checks).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/a; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
t0=$(date +%s)
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include > $L/cfg.log 2>&1
cmake --build build-gpu > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
echo "build: $(( $(date +%s)-t0 )) s"
timeout 240 ctest --test-dir build-gpu -R 'gpu\.|variants_gpu' --output-on-failure > $L/ctest.log 2>&1; echo "ctest rc=$? $(( $(date +%s)-t0 )) s"
grep -E 'tests passed|Failed|\*\*\*|Skipped' $L/ctest.log | head -20; grep -E 'deep queue' $L/ctest.log
LIB=$R/build-scratch/coloc/libbaton_train_mlp.so
timeout 120 python3 bench/colocation/check_train.py $LIB > $L/check_train.log 2>&1; echo "check_train rc=$? $(( $(date +%s)-t0 )) s"
grep -E 'split\(s\), (off|time|space) \(|FAIL|failed' $L/check_train.log | cut -c1-120
left=$(( 590 - ($(date +%s)-t0) ))
BATON_CMAKE_ARGS="-DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include" OUT=$L timeout $left bench/torch/run.sh check > $L/run-check.log 2>&1; echo "run.sh check rc=$? $(( $(date +%s)-t0 ))s"
grep -A8 'check_training summary' $L/run-check.log | cut -c1-230; tail -3 $L/run-check.log
rm -rf $L/*.json
cd $OUT && tar czf a.tgz a && rm -rf a
