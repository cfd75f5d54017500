#!/usr/bin/env bash
# Fifty-ninth session, call b (an H200): does a wider prompt SM keep more
# training at 50% load without costing the tail? The width policy counts an
# SM as prompt within 16 warps (DeviceFacts::PromptClaimWarpsPerSm), so the
# MLP's products (8-warp workers) run 2 workers per SM while LC work is
# about. BATON_PROMPT_WARPS_PER_SM=24 and 32 let them run 3 and 4. Each
# round runs colocate.py (alone, baton-time; 50% load; 2 s windows) once per
# setting, the settings in turn. Carries .deps and build/bench/colocation
# (the MLP built here with the clang plugin, with this tree's runtime).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/b; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $L/gpu.txt
cd bench/colocation
for round in 1 2 3; do
  for W in 16 24 32; do
    BATON_PROMPT_WARPS_PER_SM=$W timeout 120 python3 colocate.py \
      --lib $R/build/bench/colocation/libbaton_train_mlp.so --out $L/w$W-r$round \
      --systems alone,baton-time --loads 0.5 --window 2 --rounds 1 \
      --service-ms bert=0.32,cnn=0.91 > $L/w$W-r$round.log 2>&1
    echo "round $round warps $W rc=$? $(( $(date +%s)-t0 ))s"
    gzip -f $L/w$W-r$round/latencies.json $L/w$W-r$round/children.log 2>/dev/null
  done
done
python3 - $L <<'PY'
import json, sys, glob, statistics as st
rows = {}
for path in sorted(glob.glob(sys.argv[1] + "/w*-r*/results.json")):
    tag = path.split("/")[-2]
    w, r = tag[1:].split("-r")
    s = json.load(open(path))["summary"]["models"]
    for m in ("bert", "cnn"):
        e = next(x for x in s[m]["baton-time"] if abs(x["load"] - 0.5) < 1e-9)
        rows.setdefault((m, int(w)), []).append((e["p99_ratio"], e["kept"]))
print("model warps  p99/alone by round        kept by round          median p99x | kept")
for (m, w), v in sorted(rows.items()):
    p = [x[0] for x in v]; k = [x[1] for x in v]
    print(f"{m:5} {w:5}  {' '.join(f'{x:.2f}' for x in p):24} {' '.join(f'{x:.3f}' for x in k):22} {st.median(p):.2f}x | {st.median(k):.3f}")
PY
cd $OUT && tar czf b.tgz b && rm -rf b
