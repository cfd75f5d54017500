#!/usr/bin/env bash
# Sixtieth session, call e (an H200): runtime_hostile's requestPauses case
# mended (call d's launched its finished and original launches behind the
# long ones) and the scheduler's GPU tests; then the scheduler's trace
# written to a file (BATON_TRACE_FILE: call d's traces went to a pipe, whose
# writes blocked), colocate.py baton-time at 10% and 50% load, pauses
# asked together (on) and one driver call each (BATON_PAUSE_TOGETHER=0),
# twice each; slow_requests.py on each. Carries .deps and
# build/bench/colocation.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/e; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $L/gpu.txt
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3)"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu) > $L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
timeout 150 ctest --test-dir build-gpu -R 'gpu\.runtime_hostile|gpu\.scheduler_check|Scheduler' --output-on-failure -V > $L/ctest.log 2>&1; echo "ctest rc=$? $(( $(date +%s)-t0 ))s"
grep -E "tests passed|FAIL|\*\*\*Timeout|Not Run|requestPauses|^[0-9]+: [0-9]+ passed" $L/ctest.log | head -14
gzip -f $L/ctest.log
LIB=$R/build/bench/colocation/libbaton_train_mlp.so
for run in on-1 off-1 on-2 off-2; do
  ENV=(BATON_TRACE=1 BATON_TRACE_FILE=$L/$run.trace); [ ${run%-*} = off ] && ENV+=(BATON_PAUSE_TOGETHER=0)
  env "${ENV[@]}" timeout 50 python3 bench/colocation/colocate.py --lib $LIB --out $L/$run \
    --systems baton-time --loads 0.1,0.5 --window 2 --rounds 1 \
    --service-ms bert=0.32,cnn=0.91 > $L/$run.log 2>&1
  echo "$run rc=$? $(( $(date +%s)-t0 ))s"
  python3 bench/colocation/slow_requests.py $L/$run.trace --results $L/$run/results.json \
    --top 4 --lines 40 > $L/$run/slow.txt 2>&1
  grep '^####' $L/$run/slow.txt
  gzip -f $L/$run.trace; rm -f $L/$run/children.log* $L/$run/latencies.json*
done
cd $OUT && tar czf e.tgz e && rm -rf e
