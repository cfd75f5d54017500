#!/usr/bin/env bash
# Sixtieth session, call b (an H200): brackets that stop BE work on the
# caller's thread (SchedulerService::preemptAtBegin). The GPU tests that
# exercise it (runtime_hostile, scheduler_check); then colocate.py (alone,
# baton-time; 10% and 50% load; 2 s windows) with it on (the default) and
# off (BATON_PREEMPT_AT_BEGIN=0), three rounds, the settings in turn; then
# one traced run with it on for slow_requests.py. Carries .deps and
# build/bench/colocation.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/b; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $L/gpu.txt
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3)"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu) > $L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
timeout 150 ctest --test-dir build-gpu -R 'gpu\.runtime_hostile|gpu\.scheduler_check|SchedulerService' --output-on-failure -V > $L/ctest.log 2>&1; echo "ctest rc=$? $(( $(date +%s)-t0 ))s"
grep -E "tests passed|Failed|\*\*\*Timeout|Not Run|stopped BE work|requestPauseIfRunning" $L/ctest.log | head -20
gzip -f $L/ctest.log
LIB=$R/build/bench/colocation/libbaton_train_mlp.so
summarize() {
python3 - $L <<'PY'
import json, sys, glob, statistics as st
rows = {}
for path in sorted(glob.glob(sys.argv[1] + "/*-r*/results.json")):
    s_, r = path.split("/")[-2].split("-r")
    summ = json.load(open(path))["summary"]["models"]
    for m in ("bert", "cnn"):
        for e in summ[m]["baton-time"]:
            rows.setdefault((m, e["load"], s_), []).append((e["p99_ratio"], e["kept"]))
print("model load setting  p99/alone by round   kept by round        median p99x | kept")
for (m, load, s_), v in sorted(rows.items()):
    p = [x[0] for x in v]; k = [x[1] for x in v]
    print(f"{m:5} {load:4} {s_:6}  {' '.join(f'{x:.2f}' for x in p):20} {' '.join(f'{x:.3f}' for x in k):20} {st.median(p):.2f}x | {st.median(k):.3f}")
PY
}
for round in 1 2 3; do
  for S in on off; do
    ENV=(); [ $S = off ] && ENV=(BATON_PREEMPT_AT_BEGIN=0)
    env "${ENV[@]}" timeout 70 python3 bench/colocation/colocate.py --lib $LIB --out $L/$S-r$round \
      --systems alone,baton-time --loads 0.1,0.5 --window 2 --rounds 1 \
      --service-ms bert=0.32,cnn=0.91 > $L/$S-r$round.log 2>&1
    echo "round $round $S rc=$? $(( $(date +%s)-t0 ))s"
    rm -f $L/$S-r$round/latencies.json* $L/$S-r$round/children.log*
    summarize > $L/summary.txt 2>&1
  done
done
cat $L/summary.txt
D=$L/traced
BATON_TRACE=1 timeout 50 python3 bench/colocation/colocate.py --lib $LIB --out $D \
  --systems baton-time --loads 0.1,0.5 --window 2 --rounds 1 \
  --service-ms bert=0.32,cnn=0.91 > $D.log 2>&1
echo "traced rc=$? $(( $(date +%s)-t0 ))s"
zcat -f $D/children.log* > $D/trace.txt 2>/dev/null
python3 bench/colocation/slow_requests.py $D/trace.txt --results $D/results.json \
  --top 4 --lines 40 > $D/slow.txt 2>&1
grep '^####' $D/slow.txt
grep -c 'BE asked to stop' $D/trace.txt
gzip -f $D/trace.txt; rm -f $D/children.log* $D/latencies.json*
cd $OUT && tar czf b.tgz b && rm -rf b
