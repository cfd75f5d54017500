"""Ratios of bench/ptb_anatomy's forms to the original, over every round
file given: per size and form, the median and the range.

    python3 anatomy_summary.py ROUND.txt...
"""
import statistics
import sys
from collections import defaultdict

ratios = defaultdict(list)  # (elements, form) -> [ratio]
forms = []
for path in sys.argv[1:]:
    lines = open(path).read().splitlines()
    header = next(l.split() for l in lines if l.lstrip().startswith("elements"))
    names = header[3:]
    for name in names:
        if name not in forms:
            forms.append(name)
    for line in lines:
        cols = line.split()
        if not cols or not cols[0].isdigit():
            continue
        for i, name in enumerate(names):
            ratios[(int(cols[0]), name)].append(float(cols[4 + 2 * i].rstrip("!")))
sizes = sorted({s for s, _ in ratios})
print("| form | " + " | ".join(f"{s} elements ({s // 256} blocks)" for s in sizes) + " |")
print("| --- |" + " --- |" * len(sizes))
for name in forms:
    cells = []
    for s in sizes:
        r = ratios.get((s, name))
        cells.append(f"{statistics.median(r):.2f} ({min(r):.2f}-{max(r):.2f}, n={len(r)})" if r else "")
    print(f"| {name} | " + " | ".join(cells) + " |")
