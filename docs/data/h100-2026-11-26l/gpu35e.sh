#!/usr/bin/env bash
# Thirty-fifth session, call e: SchedulerOptions::MinReservedSms now 0, so
# that BE launches whose blocks are too long for the bound run at full
# occupancy beside whole-device brackets; BATON_MIN_RESERVED_SMS=8 is the
# old behaviour (2 workers per SM on all but 8 SMs). The colocation MLP's
# training check (losses as without Baton under pause and vacate storms),
# then baton-time at 50% load with 3 s windows, the two settings
# interleaved, three rounds.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/e; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
LIB=$R/build/bench/colocation/libbaton_train_mlp.so
timeout 150 python3 bench/colocation/check_train.py $LIB > $L/check_train.log 2>&1; echo "check_train rc=$? ($(( $(date +%s)-t0 ))s)"
tail -3 $L/check_train.log
cd bench/colocation
for r in 1 2 3; do
  for M in 0 8; do
    BATON_MIN_RESERVED_SMS=$M timeout 120 python3 colocate.py --lib $LIB --out $L/r$r-m$M --rounds 1 --deadline 110 --window 3 --loads 0.5 --service-ms bert=0.31,cnn=0.92 --systems alone,baton-time > $L/r$r-m$M.log 2>&1
    echo "round $r reserve $M rc=$? ($(( $(date +%s)-t0 ))s)"
    gzip -f $L/r$r-m$M/latencies.json $L/r$r-m$M/children.log
  done
done
python3 - $L <<'PY'
import json, sys, glob, gzip, os
def pct(v, p):
    v = sorted(v); return v[min(len(v) - 1, int(p * len(v)))]
rows, pooled = {}, {}
for f in sorted(glob.glob(sys.argv[1] + "/r*-m*/results.json")):
    r, m = os.path.basename(os.path.dirname(f)).split("-")
    runs = json.load(open(f))["rounds"][0]["runs"]
    for kind in ("bert", "cnn"):
        a = runs["alone"]["models"][kind]["windows"][0]
        w = runs["baton-time"]["models"][kind]["windows"][0]
        rows.setdefault((kind, m), []).append(
            f"{r}: p50 {w['p50_ms']*1e3:.0f} p99 {w['p99_ms']*1e3:.0f} "
            f"(alone {a['p50_ms']*1e3:.0f}/{a['p99_ms']*1e3:.0f}, "
            f"{w['p99_ms']/a['p99_ms']:.2f}x) steps {w['train_steps_per_s']:.0f}")
    lat = json.load(gzip.open(os.path.dirname(f) + "/latencies.json.gz"))
    for run, models in lat.items():
        s = run.split("-", 1)[1]
        for kind, loads in models.items():
            key = (kind, "alone" if s == "alone" else m)
            pooled.setdefault(key, []).extend(loads["0.5"])
for k in sorted(rows):
    print(k, " | ".join(rows[k]))
for k in sorted(pooled):
    v = pooled[k]
    print("pooled", k, len(v), "p50", pct(v, .5), "p99", pct(v, .99), "p99.9", pct(v, .999))
PY
cd $OUT && tar czf e.tgz e && rm -rf e
