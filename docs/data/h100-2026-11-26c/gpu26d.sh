#!/usr/bin/env bash
# Twenty-sixth session, call d (H100): the tree with the service thread that
# sleeps while all work waits for a bracket and OriginalsWhenQuietUpTo (a
# budget of originals on the device while quiet): GPU tests and check_train;
# training alone, large GPT, routed / unrouted with budgets 0 (main), 500
# and 1000 us; the first request after a quiet spell (requests 150 ms apart
# beside that training) with budgets 0 and 1000 us and with no training
# (issue 6).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/d; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
t0=$(date +%s)
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include > $L/cfg.log 2>&1
cmake --build build-gpu > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
timeout 200 ctest --test-dir build-gpu -R 'gpu\.|variants_gpu|SchedulerService|SchedulerSim' --output-on-failure > $L/ctest.log 2>&1; echo "ctest rc=$? $(( $(date +%s)-t0 )) s"
grep -E 'tests passed|Failed|\*\*\*' $L/ctest.log | head -10
timeout 100 python3 bench/colocation/check_train.py $R/build-scratch/coloc-new/libbaton_train_mlp.so > $L/check_train.log 2>&1; echo "check_train rc=$? $(( $(date +%s)-t0 )) s"
grep -E 'failed' $L/check_train.log
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include"
(cmake -S . -B build-torch $CFG && cmake --build build-torch --target baton_python) > $L/build-torch.log 2>&1 || { tail -20 $L/build-torch.log; exit 1; }
echo "torch build $(( $(date +%s)-t0 )) s"
export PYTHONPATH=$R/build-torch/python BATON_CACHE_DIR=/tmp/bcache-26
i=0
for s in q1000 rt0 q500 qf0 qf1000 qfnone; do
  left=$(( 590 - ($(date +%s)-t0) )); [ $left -gt 50 ] || break
  i=$((i+1)); env=""
  case $s in q1000|qf1000) env="BATON_QUIET_ORIGINALS_UP_TO_US=1000";; q500) env="BATON_QUIET_ORIGINALS_UP_TO_US=500";; esac
  case $s in
    qf*) a=""; [ $s = qfnone ] && a=--no-training
         env $env timeout $left python3 bench/torch/quiet_first_request.py $a > $L/$i-$s.log 2>&1
         echo "$i $s rc=$? $(( $(date +%s)-t0 ))s: $(tail -2 $L/$i-$s.log | tr '\n' ';')";;
    *)   env $env timeout $left python3 bench/torch/route_threshold.py --train gpt --scale large --thresholds 100 --seconds 5 > $L/$i-$s.log 2>&1
         echo "$i $s rc=$? $(( $(date +%s)-t0 ))s: $(grep -E 'routed|again' $L/$i-$s.log | tr -s ' ' | tr '\n' ';')";;
  esac
done
cd $OUT && tar czf d.tgz d && rm -rf d
