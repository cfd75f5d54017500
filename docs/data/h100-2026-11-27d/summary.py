"""Per model and run tag (folders r<round>-<tag> under DIR): the latencies
of every round pooled (count, p50 / p99 / p99.9 as latencies.json has
them) and each window's training steps/s. Usage: summary.py DIR"""
import glob
import gzip
import json
import os
import sys
from collections import defaultdict

latencies, steps = defaultdict(list), defaultdict(list)
for run_dir in sorted(glob.glob(os.path.join(sys.argv[1], "r*-*"))):
    if not os.path.isdir(run_dir):
        continue
    tag = os.path.basename(run_dir).split("-", 1)[1]
    with open(os.path.join(run_dir, "results.json")) as f:
        results = json.load(f)
    for one_round in results["rounds"]:
        for system in one_round["runs"].values():
            for kind, model in system["models"].items():
                steps[kind, tag] += [round(w["train_steps_per_s"])
                                     for w in model["windows"]
                                     if w.get("train_steps_per_s")]
    with gzip.open(os.path.join(run_dir, "latencies.json.gz")) as f:
        for models in json.load(f).values():
            for kind, loads in models.items():
                for values in loads.values():
                    latencies[kind, tag] += values


def percentile(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


for key in sorted(latencies):
    v = latencies[key]
    print(f"{key[0]:5} {key[1]:10} {len(v):6} requests  p50 / p99 / p99.9 "
          + " / ".join(f"{percentile(v, q):.3f}" for q in (0.5, 0.99, 0.999))
          + f"  steps/s {steps.get(key, [])}")
