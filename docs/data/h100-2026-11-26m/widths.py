"""Per kernel, from a BATON_TRACE=1 log: how often each (re)launch width was
used, and the block time each run measured (elapsed over rounds of `width`
blocks side by side), median per width. Usage: widths.py children.log[.gz]"""
import gzip, re, statistics, sys
from collections import defaultdict

path = sys.argv[1]
f = gzip.open(path, "rt") if path.endswith(".gz") else open(path)
name, width = {}, {}
uses = defaultdict(lambda: defaultdict(int))
blocks = defaultdict(lambda: defaultdict(list))
for line in f:
    m = re.search(r"baton-trace +[\d.]+: launch (\d+) '([^']+)' form (\d) width (\d+)", line)
    if m:
        i, n, form, w = m.group(1), m.group(2), m.group(3), int(m.group(4))
        if form != "2":  # Ptb only
            continue
        name[i], width[i] = n, w
        if "start-paused" not in line:
            uses[n][w] += 1
        continue
    m = re.search(r"baton-trace +[\d.]+: resume (\d+) width (\d+)", line)
    if m and m.group(1) in name:
        width[m.group(1)] = int(m.group(2))
        uses[name[m.group(1)]][int(m.group(2))] += 1
        continue
    m = re.search(r"baton-trace +[\d.]+: (done|paused) (\d+) after (\d+) us, (\d+) blocks", line)
    if m and m.group(2) in name:
        i, us, n = m.group(2), int(m.group(3)), int(m.group(4))
        w = width[i]
        if n >= 2 * w:  # at least two rounds: a block time, not a tail
            blocks[name[i]][w].append(us / -(-n // w))
top = sorted(uses, key=lambda n: -sum(uses[n].values()))[:6]
for n in top:
    parts = []
    for w in sorted(uses[n]):
        b = blocks[n].get(w)
        med = f", block {statistics.median(b):.0f} us ({len(b)} runs)" if b else ""
        parts.append(f"width {w}: {uses[n][w]}{med}")
    print(f"{n[:40]}: " + "; ".join(parts))
