#!/usr/bin/env bash
# Sixty-first session, call b (an H200): the prompt climb held to twice its
# base occupancy (PromptModel::MostTimesBase; BATON_PROMPT_FROM_PAUSES=1) against the
# default (off), colocate.py as the fifty-ninth session's call e (alone, baton-time; 10% and 50%
# load; 2 s windows), three rounds, the settings in turn; then one traced
# run (bert, 50%, on) for the drains and limits. Carries .deps and
# build/bench/colocation. Results are written as each run ends; all tarred.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/b; mkdir -p $L
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
for round in 1 2 3; do
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
BATON_PROMPT_FROM_PAUSES=1 BATON_TRACE=1 timeout 40 python3 colocate.py --lib $LIB \
  --out $L/traced --models bert --systems baton-time --loads 0.5 --window 2 \
  --rounds 1 --service-ms bert=0.32,cnn=0.91 > $L/traced.log 2>&1
echo "traced rc=$? $(( $(date +%s)-t0 ))s"
zcat -f $L/traced/children.log* 2>/dev/null | grep -h "drain of" > $L/drains.txt
python3 - $L/drains.txt <<'PY'
import re, sys, collections
by = collections.defaultdict(list); last = {}
for l in open(sys.argv[1]):
    m = re.search(r"drain of '([^']*)' at (\d+) per SM: (-?\d+) us \(limit now (\d+)\)", l)
    if m:
        by[(m.group(1)[:40], int(m.group(2)))].append(int(m.group(3)))
        last[m.group(1)[:40]] = int(m.group(4))
print("kernel                                   perSM  pauses  drain p50/p90 us")
for (k, n), d in sorted(by.items()):
    d.sort()
    print(f"{k:40} {n:5} {len(d):7}  {d[len(d)//2]:6}/{d[int(len(d)*0.9)]}")
print("final limits:", last)
PY
rm -f $L/traced/children.log* $L/traced/latencies.json*; gzip -f $L/drains.txt
cd $OUT && tar czf b.tgz b && rm -rf b
