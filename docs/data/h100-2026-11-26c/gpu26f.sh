#!/usr/bin/env bash
# Twenty-sixth session, call f (H100): the tree with lingering bracket ends
# (SchedulerService::lingerAfterBrackets, BATON_LC_LINGER_US): GPU tests,
# SchedulerService tests and check_train; then colocate.py, bert at 10% and
# 50% load, 3 rounds, same arrivals, with no linger (the default), 60 us
# and 200 us (issue 5).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/f; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
t0=$(date +%s)
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include > $L/cfg.log 2>&1
cmake --build build-gpu > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
timeout 200 ctest --test-dir build-gpu -R 'gpu\.|variants_gpu|SchedulerService|SchedulerSim' --output-on-failure > $L/ctest.log 2>&1; echo "ctest rc=$? $(( $(date +%s)-t0 )) s"
grep -E 'tests passed|Failed|\*\*\*' $L/ctest.log | head -10
LIB=$R/build-scratch/coloc-new/libbaton_train_mlp.so
timeout 100 python3 bench/colocation/check_train.py $LIB > $L/check_train.log 2>&1; echo "check_train rc=$? $(( $(date +%s)-t0 )) s"
grep -E 'failed' $L/check_train.log
cd bench/colocation
for l in 0 60 200; do
  left=$(( 585 - ($(date +%s)-t0) )); [ $left -gt 60 ] || break
  BATON_LC_LINGER_US=$l timeout $left python3 colocate.py --lib $LIB --out $L/coloc-$l --models bert --systems alone,baton-time --loads 0.1,0.5 --rounds 3 --window 2 --service-ms bert=0.30 --deadline $((left-15)) > $L/coloc-$l.log 2>&1
  echo "linger $l rc=$? $(( $(date +%s)-t0 ))s"; sed -n '/==== colocation/,$p' $L/coloc-$l.log | grep -E 'bert|baton-time|target' | head -6
done
cd $OUT && tar czf f.tgz f && rm -rf f
