#!/usr/bin/env bash
# Sixtieth session, call f (an H200): polls that read the finalize kernel's
# report instead of the driver (RuntimeOptions::PollReports). The GPU tests
# that poll launches (the scheduler's, runtime_hostile's fault child,
# exactly_once, the C API, the share checks, python); then, one round each,
# request_phases.py (bert, 50%, time) and colocate.py (bert; alone,
# baton-time; 10% and 50%) with it on and off (BATON_POLL_REPORTS=0).
# Carries .deps and build/bench/colocation.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/f; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $L/gpu.txt
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3)"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu) > $L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
timeout 100 ctest --test-dir build-gpu -R 'gpu\.(exactly_once|runtime_hostile|scheduler_check|c_api|share_check)|python|Scheduler' --output-on-failure -V > $L/ctest.log 2>&1; echo "ctest rc=$? $(( $(date +%s)-t0 ))s"
grep -E "tests passed|FAIL|\*\*\*Timeout|Not Run|child: |^[0-9]+: [0-9]+ passed" $L/ctest.log | head -14
gzip -f $L/ctest.log
LIB=$R/build/bench/colocation/libbaton_train_mlp.so
for S in on off; do
  ENV=(); [ $S = off ] && ENV=(BATON_POLL_REPORTS=0)
  (cd bench/colocation && env "${ENV[@]}" timeout 30 python3 request_phases.py --lib $LIB \
    --mode time --model bert --load 0.5 --seconds 3) > $L/phases-$S.txt 2>&1
  echo "== phases $S $(( $(date +%s)-t0 ))s"; grep -E 'lc_begin|launch|synchronize|request|device' $L/phases-$S.txt | head -6
done
for S in on off; do
  ENV=(); [ $S = off ] && ENV=(BATON_POLL_REPORTS=0)
  env "${ENV[@]}" timeout 45 python3 bench/colocation/colocate.py --lib $LIB --out $L/$S \
    --models bert --systems alone,baton-time --loads 0.1,0.5 --window 2 --rounds 1 \
    --service-ms bert=0.32 > $L/$S.log 2>&1
  echo "== colocate $S rc=$? $(( $(date +%s)-t0 ))s"; grep -A4 '^bert' $L/$S.log | grep -E 'baton-time|alone.s p99' | head -3
  rm -f $L/$S/latencies.json* $L/$S/children.log*
done
cd $OUT && tar czf f.tgz f && rm -rf f
