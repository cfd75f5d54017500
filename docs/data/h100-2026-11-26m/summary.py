"""Per round and pooled over rounds: p50 / p99 (us) and training steps/s of
each run folder r<round>-<tag> under the folder given. Usage: summary.py DIR"""
import json, sys, glob, os, gzip
rows = {}
pool = {}
for f in sorted(glob.glob(sys.argv[1] + "/r*-*/results.json")):
    tag = os.path.basename(os.path.dirname(f))
    r, t = tag.split("-", 1)
    if r == "trace":
        continue
    res = json.load(open(f))
    sysname = "alone" if t == "alone" else "baton-time"
    lat = json.load(gzip.open(os.path.dirname(f) + "/latencies.json.gz"))
    for rec in res["rounds"]:
        for kind in ("bert", "cnn"):
            for w in rec["runs"][sysname]["models"][kind]["windows"]:
                steps = w.get("train_steps_per_s")
                rows.setdefault((kind, t), []).append(
                    f"{r}: p50 {w['p50_ms']*1e3:.0f} p99 {w['p99_ms']*1e3:.0f}"
                    + (f" steps {steps:.0f}" if steps else ""))
    for run, models in lat.items():
        for kind, loads in models.items():
            for load, l in loads.items():
                pool.setdefault((kind, t), []).extend(l)
for k in sorted(rows):
    print(k, " | ".join(rows[k]))
def pct(l, q):
    l = sorted(l); return l[min(len(l) - 1, int(q * len(l)))]
for k in sorted(pool):
    l = pool[k]
    print("pooled", k, len(l), "p50", pct(l, .5), "p99", pct(l, .99), "p99.9", pct(l, .999))
