#!/usr/bin/env bash
# Thirty-sixth session, call d: the final scheduler (block times recorded
# under the occupancy a launch was sized for, one claim chunk for both
# widths, a new occupancy's first sample averaged in).
# 1. GPU tests and the scheduler's unit tests; the MLP's training check.
# 2. baton-time at 50% load, 3 s windows, bounds 100 and 300 us, alone in
#    each round, two rounds interleaved; one traced process at 300 us.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/d; mkdir -p $L
D=$R/docs/data/h100-2026-11-26m
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
cd bench/colocation
for r in 1 2; do
  for T in alone new-100 new-300; do
    case $T in
      alone) SYS=alone; B=100 ;;
      new-*) SYS=baton-time; B=${T#new-} ;;
    esac
    BATON_PREEMPTION_BOUND_US=$B timeout 100 python3 colocate.py --lib $NEW --out $L/r$r-$T --rounds 1 --deadline 90 --window 3 --loads 0.5 --service-ms bert=0.31,cnn=0.92 --systems $SYS > $L/r$r-$T.log 2>&1
    echo "round $r $T rc=$? ($(( $(date +%s)-t0 ))s)"
    gzip -f $L/r$r-$T/latencies.json $L/r$r-$T/children.log
  done
done
BATON_TRACE=1 BATON_PREEMPTION_BOUND_US=300 timeout 100 python3 colocate.py --lib $NEW --out $L/trace-new --rounds 1 --deadline 90 --window 3 --loads 0.5 --models bert --service-ms bert=0.31 --systems baton-time > $L/trace-new.log 2>&1
echo "trace new rc=$? ($(( $(date +%s)-t0 ))s)"
gzip -f $L/trace-new/latencies.json $L/trace-new/children.log
echo "== new, 300 us"; python3 $D/widths.py $L/trace-new/children.log.gz
python3 $D/summary.py $L
cd $OUT && tar czf d.tgz d && rm -rf d
