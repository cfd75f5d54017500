#!/usr/bin/env bash
# Thirty-fifth session, call d: call c's bounds 100 (default) and 1000 us
# again at 50% load only, with 3 s windows (about 4,800 requests each, so
# that a p99 is not set by a handful of stalls), one round per process, the
# bounds interleaved, three rounds.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/d; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
cd bench/colocation
for r in 1 2 3; do
  for B in 100 1000; do
    BATON_PREEMPTION_BOUND_US=$B timeout 120 python3 colocate.py --lib $R/build/bench/colocation/libbaton_train_mlp.so --out $L/r$r-b$B --rounds 1 --deadline 110 --window 3 --loads 0.5 --service-ms bert=0.31,cnn=0.92 --systems alone,baton-time > $L/r$r-b$B.log 2>&1
    echo "round $r bound $B rc=$? ($(( $(date +%s)-t0 ))s)"
    gzip -f $L/r$r-b$B/latencies.json $L/r$r-b$B/children.log
  done
done
python3 - $L <<'PY'
import json, sys, glob, os
rows = {}
for f in sorted(glob.glob(sys.argv[1] + "/r*-b*/results.json")):
    r, b = os.path.basename(os.path.dirname(f)).split("-")
    runs = json.load(open(f))["rounds"][0]["runs"]
    for kind in ("bert", "cnn"):
        a = runs["alone"]["models"][kind]["windows"][0]
        w = runs["baton-time"]["models"][kind]["windows"][0]
        rows.setdefault((kind, b), []).append(
            f"{r}: p50 {w['p50_ms']*1e3:.0f} p99 {w['p99_ms']*1e3:.0f} "
            f"(alone {a['p50_ms']*1e3:.0f}/{a['p99_ms']*1e3:.0f}, "
            f"{w['p99_ms']/a['p99_ms']:.2f}x) steps {w['train_steps_per_s']:.0f}")
for k in sorted(rows):
    print(k, " | ".join(rows[k]))
PY
cd $OUT && tar czf d.tgz d && rm -rf d
