#!/usr/bin/env bash
# Forty-ninth session, call c (issue 5): baton-time at 10% and 50% load
# with first shares as claims (default) and covering the grid
# (BATON_COVERING_SHARES=1), three rounds, the settings
# interleaved, call a's service times of the forty-first session (so every
# run has the same arrival rates). Carries build/bench/colocation.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/c; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
LIB=$R/build/bench/colocation/libbaton_train_mlp.so
cd bench/colocation
for r in 1 2 3; do
  for T in 0 1; do
    left=$(( 570 - ($(date +%s)-t0) )); [ $left -gt 100 ] || { echo "no time for round $r T=$T"; break 2; }
    BATON_COVERING_SHARES=$T timeout $left python3 colocate.py --lib $LIB --out $L/r$r-t$T --rounds 1 --deadline $(( left - 10 )) --loads 0.1,0.5 --service-ms bert=0.29,cnn=0.90 --systems alone,baton-time > $L/r$r-t$T.log 2>&1
    echo "round $r covering $T rc=$? ($(( $(date +%s)-t0 ))s)"
    gzip -f $L/r$r-t$T/latencies.json $L/r$r-t$T/children.log
  done
done
python3 - $L <<'PY' | tee $L/summary.txt
import glob, json, os, sys
from collections import defaultdict
cells = defaultdict(list)
for d in sorted(glob.glob(os.path.join(sys.argv[1], "r*-t*"))):
    if not os.path.isfile(os.path.join(d, "results.json")):
        continue
    t = os.path.basename(d).split("-t", 1)[1]
    models = json.load(open(os.path.join(d, "results.json")))["summary"]["models"]
    for model, systems in models.items():
        for row in systems.get("baton-time", []):
            cells[t, model, row["load"]].append(f"{row['p99_ratio']:.2f}x|{row['kept']:.2f}")
for key in sorted(cells):
    print(f"covering shares {key[0]}, {key[1]} {key[2]}: {' '.join(cells[key])}")
PY
cd $OUT && tar czf c.tgz c && rm -rf c
