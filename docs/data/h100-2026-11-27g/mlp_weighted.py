"""Per round of variant_overhead over bench/manifests/colocation-mlp.txt:
each column's geometric mean over the distinct launches (variant_overhead's
own line) and its ratio weighted by time, each launch counted as often as a
step makes it (the "# xN" comment above its manifest line). Column `chunk`
(the scheduler's claim chunk for `sched`) is listed, not averaged.

    python3 mlp_weighted.py MANIFEST ROUND.txt...
"""
import math
import re
import sys

counts = []
for line in open(sys.argv[1]):
    m = re.match(r"# x(\d+)", line)
    if m:
        counts.append(int(m.group(1)))
for path in sys.argv[2:]:
    rows = [l.split() for l in open(path) if l.startswith("mlp/")]
    if len(rows) != len(counts):
        print(f"{path}: {len(rows)} rows for {len(counts)} counts")
        continue
    header = next(l.split() for l in open(path) if l.startswith("module"))
    cols = header[5:]  # slice ptb pf ... sched ("orig us" is 2 words)
    orig = [float(r[3]) for r in rows]
    total = sum(c * o for c, o in zip(counts, orig))
    print(f"{path}: step's kernels {total:.1f} us as originals")
    for j, name in enumerate(cols):
        if name == "chunk":
            print("  chunks  " + " ".join(r[4 + j] for r in rows))
            continue
        ratios = [float(r[4 + j]) for r in rows]
        geo = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
        weighted = sum(c * o * x for c, o, x in zip(counts, orig, ratios)) / total
        print(f"  {name:7} geometric mean {geo:.3f}  time-weighted {weighted:.3f}")
