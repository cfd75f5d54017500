#!/usr/bin/env bash
# Thirty-fifth session, call c: the preemption bound against training kept.
# The MLP's product blocks (about 130 us) are longer than the default bound
# (100 us), so while LC work is about the scheduler runs them at the prompt
# occupancy (2 workers per SM for 256-thread blocks) on all but 8 SMs; with
# a bound of 300 us they fit the crowded-SM model and run at full occupancy.
# baton-time at 10% and 50% load, bounds 100 (default), 300 and 1000 us,
# one round per process, the bounds interleaved, three rounds, the same
# arrivals everywhere (--service-ms).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/c; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
cd bench/colocation
for r in 1 2 3; do
  for B in 100 300 1000; do
    BATON_PREEMPTION_BOUND_US=$B timeout 100 python3 colocate.py --lib $R/build/bench/colocation/libbaton_train_mlp.so --out $L/r$r-b$B --rounds 1 --deadline 90 --loads 0.1,0.5 --service-ms bert=0.31,cnn=0.92 --systems alone,baton-time > $L/r$r-b$B.log 2>&1
    echo "round $r bound $B rc=$? ($(( $(date +%s)-t0 ))s)"
    gzip -f $L/r$r-b$B/latencies.json $L/r$r-b$B/children.log
  done
done
python3 - $L <<'PY'
import json, sys, glob, os
rows = {}
for f in sorted(glob.glob(sys.argv[1] + "/r*-b*/results.json")):
    tag = os.path.basename(os.path.dirname(f))
    r, b = tag.split("-")
    res = json.load(open(f))
    for rec in res["rounds"]:
        runs = rec["runs"]
        for kind in ("bert", "cnn"):
            ref = {w["load"]: w for w in runs["alone"]["models"][kind]["windows"]}
            for w in runs["baton-time"]["models"][kind]["windows"]:
                a = ref[w["load"]]
                rows.setdefault((kind, w["load"], b), []).append(
                    f"{r}: p50 {w['p50_ms']*1e3:.0f} p99 {w['p99_ms']*1e3:.0f} (alone {a['p50_ms']*1e3:.0f}/{a['p99_ms']*1e3:.0f}) steps {w['train_steps_per_s']:.0f}")
for k in sorted(rows):
    print(k, " | ".join(rows[k]))
PY
cd $OUT && tar czf c.tgz c && rm -rf c
