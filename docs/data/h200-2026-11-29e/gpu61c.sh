#!/usr/bin/env bash
# Sixty-first session, call c (an H200): call b again, three more rounds, then the GPU tests
# with the capped climb on (BATON_PROMPT_FROM_PAUSES=1). Call b: the climb held to twice its
# base occupancy (PromptModel::MostTimesBase; BATON_PROMPT_FROM_PAUSES=1) against the
# default (off), colocate.py as the fifty-ninth session's call e (alone, baton-time; 10% and 50%
# load; 2 s windows), three rounds, the settings in turn. Carries .deps and
# build/bench/colocation. Results are written as each run ends; all tarred.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/c; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $L/gpu.txt
cd bench/colocation
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
for round in 4 5 6; do
  for S in on off; do
    ENV=(); [ $S = on ] && ENV=(BATON_PROMPT_FROM_PAUSES=1)
    env "${ENV[@]}" timeout 70 python3 colocate.py --lib $LIB --out $L/$S-r$round \
      --systems alone,baton-time --loads 0.1,0.5 --window 2 --rounds 1 \
      --service-ms bert=0.32,cnn=0.91 > $L/$S-r$round.log 2>&1
    echo "round $round $S rc=$? $(( $(date +%s)-t0 ))s"
    gzip -f $L/$S-r$round/latencies.json $L/$S-r$round/children.log 2>/dev/null
    summarize > $L/summary.txt 2>&1
  done
done
cat $L/summary.txt
cd $R
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3)"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu) > $L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
BATON_PROMPT_FROM_PAUSES=1 timeout 280 ctest --test-dir build-gpu -R 'gpu\.|variants_gpu|Scheduler|ClaimsOf' -E 'gpu\.preload|gpu\.torch|python' --output-on-failure > $L/ctest.log 2>&1
echo "ctest rc=$? $(( $(date +%s)-t0 ))s"
grep -E "tests passed|FAIL|\*\*\*Timeout|Not Run" $L/ctest.log | head -8
gzip -f $L/ctest.log; rm -f $L/build.log
cd $OUT && tar czf c.tgz c && rm -rf c
