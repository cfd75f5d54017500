#!/usr/bin/env bash
# Fifty-ninth session, call d (an H200): the prompt limit learned from
# pauses (6fd8de7, on by default) against the device's limits alone
# (BATON_PROMPT_FROM_PAUSES=0, as main was) and against a fixed 32 warps
# per SM (call b's setting, learning off). Each round runs colocate.py
# (alone, baton-time; 10% and 50% load; 2 s windows) once per setting, the
# settings in turn. Carries .deps and build/bench/colocation (the MLP built
# here with the clang plugin, with this tree's runtime).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/d; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $L/gpu.txt
cd bench/colocation
for round in 1 2 3; do
  for S in learn off w32; do
    case $S in
      learn) ENV=();;
      off) ENV=(BATON_PROMPT_FROM_PAUSES=0);;
      w32) ENV=(BATON_PROMPT_FROM_PAUSES=0 BATON_PROMPT_WARPS_PER_SM=32);;
    esac
    env "${ENV[@]}" timeout 150 python3 colocate.py \
      --lib $R/build/bench/colocation/libbaton_train_mlp.so --out $L/$S-r$round \
      --systems alone,baton-time --loads 0.1,0.5 --window 2 --rounds 1 \
      --service-ms bert=0.32,cnn=0.91 > $L/$S-r$round.log 2>&1
    echo "round $round $S rc=$? $(( $(date +%s)-t0 ))s"
    gzip -f $L/$S-r$round/latencies.json $L/$S-r$round/children.log 2>/dev/null
  done
done
python3 - $L <<'PY'
import json, sys, glob, statistics as st
rows = {}
for path in sorted(glob.glob(sys.argv[1] + "/*-r*/results.json")):
    tag = path.split("/")[-2]
    s_, r = tag.split("-r")
    summ = json.load(open(path))["summary"]["models"]
    for m in ("bert", "cnn"):
        for e in summ[m]["baton-time"]:
            rows.setdefault((m, e["load"], s_), []).append((e["p99_ratio"], e["kept"]))
print("model load setting  p99/alone by round   kept by round        median p99x | kept")
for (m, load, s_), v in sorted(rows.items()):
    p = [x[0] for x in v]; k = [x[1] for x in v]
    print(f"{m:5} {load:4} {s_:6}  {' '.join(f'{x:.2f}' for x in p):20} {' '.join(f'{x:.3f}' for x in k):20} {st.median(p):.2f}x | {st.median(k):.3f}")
PY
cd $OUT && tar czf d.tgz d && rm -rf d
