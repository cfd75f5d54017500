#!/usr/bin/env bash
# Thirty-seventh session, call d: the tree with launches of short blocks run
# as the originals once idle (84f4ebc).
# 1. The MLP's training check; GPU tests and the scheduler's unit tests.
# 2. The first request after 1.2 s gaps (idle: the new rule applies), the
#    default against BATON_IDLE_ORIGINAL_BLOCKS_US=0, and with no training.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/d; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
NEW=$R/build/bench/colocation/libbaton_train_mlp.so
timeout 100 python3 bench/colocation/check_train.py $NEW > $L/check_train.log 2>&1; echo "check_train rc=$? ($(( $(date +%s)-t0 ))s)"
tail -2 $L/check_train.log
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3)"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
timeout 200 ctest --test-dir build-gpu -R 'gpu\.|variants_gpu|Scheduler' -E 'preload' --output-on-failure > $L/ctest.log 2>&1; echo "ctest rc=$? $(( $(date +%s)-t0 ))s"
grep -E "tests passed|Failed|\*\*\*Timeout" $L/ctest.log | head -10
export PYTHONPATH=$R/build-torch/python BATON_CACHE_DIR=/tmp/bcache-37
(cmake --build build-torch --target baton_python) > $L/build-torch.log 2>&1 || echo "torch build failed"
i=0
for v in default off none default off; do
  left=$(( 590 - ($(date +%s)-t0) )); [ $left -gt 60 ] || break
  i=$((i+1))
  case $v in
    off) BATON_IDLE_ORIGINAL_BLOCKS_US=0 timeout $left python3 bench/torch/quiet_first_request.py --graph --gap-ms 1200 --requests 20 > $L/q$i-$v.log 2>&1 ;;
    none) timeout $left python3 bench/torch/quiet_first_request.py --graph --gap-ms 1200 --requests 20 --no-training > $L/q$i-$v.log 2>&1 ;;
    *) timeout $left python3 bench/torch/quiet_first_request.py --graph --gap-ms 1200 --requests 20 > $L/q$i-$v.log 2>&1 ;;
  esac
  echo "q $i $v rc=$? $(( $(date +%s)-t0 ))s: $(grep -E '^(latency|device)' $L/q$i-$v.log | tr -s ' ' | tr '\n' ';')"
done
cd $OUT && tar czf d.tgz d && rm -rf d
