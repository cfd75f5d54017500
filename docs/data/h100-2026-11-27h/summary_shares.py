"""Per setting (folders r<round>-f<0|1> under DIR, BATON_FIRST_SHARES):
training under Baton alone over exclusive, and baton-time's p99 over alone's
and training kept of exclusive at each load, from each run's own
results.json summary, rounds side by side. Usage: summary_shares.py DIR"""
import glob
import json
import os
import sys
from collections import defaultdict

cells = defaultdict(list)  # (setting, model, load) -> ["1.12x|0.59", ...]
alone = defaultdict(list)  # setting -> ["0.93 (201/s)", ...]
for run_dir in sorted(glob.glob(os.path.join(sys.argv[1], "r*-f*"))):
    if not os.path.isdir(run_dir):
        continue
    setting = os.path.basename(run_dir).split("-f", 1)[1]
    with open(os.path.join(run_dir, "results.json")) as f:
        summary = json.load(f)["summary"]
    t = summary["training"]
    alone[setting].append(f"{t['baton_alone_ratio']:.3f} of "
                          f"{t['exclusive_steps_per_s']:.0f}/s")
    for model, systems in summary["models"].items():
        for row in systems.get("baton-time", []):
            cells[setting, model, row["load"]].append(
                f"{row['p99_ratio']:.2f}x|{row['kept']:.2f}")
for setting in sorted(alone, reverse=True):
    name = "first shares" if setting == "1" else "no first shares"
    print(f"{name}: training alone under Baton {', '.join(alone[setting])}")
    for model in sorted({m for s, m, _ in cells if s == setting}):
        loads = sorted(l for s, m, l in cells if s == setting and m == model)
        print(f"  {model}: " + "  ".join(
            f"{l}: {' '.join(cells[setting, model, l])}" for l in loads))
