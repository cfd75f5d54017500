#!/usr/bin/env bash
# Fifty-ninth session, call e (an H200): the prompt limit judged from 8
# pauses an occupancy (on by default) against the device's limits
# alone (BATON_PROMPT_FROM_PAUSES=0), colocate.py as call d (alone,
# baton-time; 10% and 50% load; 2 s windows; three rounds, the settings in
# turn); then one traced run (bert, 50%) for the drains the scheduler
# judged; then the GPU tests. Carries .deps and build/bench/colocation.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/e; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $L/gpu.txt
git log -1 --format=%h > $L/commit.txt 2>/dev/null
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3)"
cd bench/colocation
LIB=$R/build/bench/colocation/libbaton_train_mlp.so
for round in 1 2 3; do
  for S in learn off; do
    ENV=(); [ $S = off ] && ENV=(BATON_PROMPT_FROM_PAUSES=0)
    env "${ENV[@]}" timeout 150 python3 colocate.py --lib $LIB --out $L/$S-r$round \
      --systems alone,baton-time --loads 0.1,0.5 --window 2 --rounds 1 \
      --service-ms bert=0.32,cnn=0.91 > $L/$S-r$round.log 2>&1
    echo "round $round $S rc=$? $(( $(date +%s)-t0 ))s"
    gzip -f $L/$S-r$round/latencies.json $L/$S-r$round/children.log 2>/dev/null
  done
done
BATON_TRACE=1 timeout 100 python3 colocate.py --lib $LIB --out $L/traced --models bert \
  --systems baton-time --loads 0.5 --window 2 --rounds 1 --service-ms bert=0.32,cnn=0.91 \
  > $L/traced.log 2>&1
echo "traced rc=$? $(( $(date +%s)-t0 ))s"
zcat -f $L/traced/children.log* 2>/dev/null | grep -h "drain of" > $L/drains.txt
python3 - $L/drains.txt <<'PY'
import re, sys, collections
by = collections.defaultdict(list)
for l in open(sys.argv[1]):
    m = re.search(r"drain of '([^']*)' at (\d+) per SM: (-?\d+) us \(prompt within (\d+)\)", l)
    if m:
        by[(m.group(1)[:40], int(m.group(2)))].append((int(m.group(3)), int(m.group(4))))
print("kernel                                   perSM  pauses  late  drain p50/p90 us  allowed")
for (k, n), v in sorted(by.items()):
    d = sorted(x[0] for x in v)
    late = sum(1 for x in v if x[0] > x[1])
    print(f"{k:40} {n:5} {len(v):7} {late:5}  {d[len(d)//2]:6}/{d[int(len(d)*0.9)]:<6}  {v[-1][1]}")
PY
rm -rf $L/traced/latencies.json
rm -f $L/traced/children.log*; gzip -f $L/drains.txt
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
cd $R
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu) > $L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
left=$(( 590 - ($(date +%s)-t0) ))
echo "tests with ${left}s left"
timeout $left ctest --test-dir build-gpu -R 'gpu\.|variants_gpu|Scheduler|ClaimsOf|python' -E 'gpu\.preload|gpu\.torch' --output-on-failure -V > $L/ctest.log 2>&1; echo "ctest rc=$? $(( $(date +%s)-t0 ))s"
grep -E "tests passed|Failed|\*\*\*Timeout|Not Run" $L/ctest.log | head -12
gzip -f $L/ctest.log
cd $OUT && tar czf e.tgz e && rm -rf e
