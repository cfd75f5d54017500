"""Per bound (folders r<round>-b<bound> under DIR): baton-time's p99 over
alone's and training kept of exclusive at each load, from each run's own
results.json summary, rounds side by side. Usage: summary_loads.py DIR"""
import glob
import json
import os
import sys
from collections import defaultdict

cells = defaultdict(list)  # (bound, model, load) -> ["1.12x|0.59", ...]
for run_dir in sorted(glob.glob(os.path.join(sys.argv[1], "r*-b*"))):
    if not os.path.isdir(run_dir):
        continue
    bound = os.path.basename(run_dir).split("-b", 1)[1]
    with open(os.path.join(run_dir, "results.json")) as f:
        models = json.load(f)["summary"]["models"]
    for model, systems in models.items():
        for row in systems.get("baton-time", []):
            cells[bound, model, row["load"]].append(
                f"{row['p99_ratio']:.2f}x|{row['kept']:.2f}")
for bound in sorted({b for b, _, _ in cells}, key=int):
    for model in sorted({m for b, m, _ in cells if b == bound}):
        loads = sorted(l for b, m, l in cells if b == bound and m == model)
        print(f"bound {bound} us, {model}: " + "  ".join(
            f"{l}: {' '.join(cells[bound, model, l])}" for l in loads))
