#!/usr/bin/env python3
"""Plots one preemption from bench/preempt_timeline's CSV: every virtual
block that ran around the request as a bar from its start to its end (one
row per block, ordered by start), with the request (t = 0), the moment the
flag became visible on the device, and the moment the host saw the launch
end.

usage: plot_preempt_timeline.py TIMELINE_CSV OUT_PNG [SPIN_US ...]
"""
import csv
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read(path):
    rows = defaultdict(lambda: {"blocks": [], "events": {}})
    with open(path) as f:
        for r in csv.DictReader(f):
            spin = int(r["spin_us"])
            start, end = float(r["start_us"]), float(r["end_us"])
            if r["what"] == "block":
                rows[spin]["blocks"].append((start, end))
            else:
                rows[spin]["events"][r["what"]] = start
    return rows


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    rows = read(sys.argv[1])
    spins = [int(s) for s in sys.argv[3:]] or sorted(rows)
    fig, axes = plt.subplots(1, len(spins), figsize=(5 * len(spins), 4.5),
                             squeeze=False)
    for ax, spin in zip(axes[0], spins):
        blocks = sorted(rows[spin]["blocks"])
        events = rows[spin]["events"]
        late = [b for b in blocks if b[0] > events["flag"]]
        for i, (start, end) in enumerate(blocks):
            colour = "tab:red" if start > events["flag"] else "tab:blue"
            ax.plot([start, end], [i, i], color=colour, linewidth=0.6)
        for name, colour in (("flag", "tab:orange"), ("notice", "tab:green")):
            ax.axvline(events[name], color=colour, linestyle="--",
                       label=f"{name} {events[name]:.1f} us")
        ax.axvline(0, color="black", label="request")
        ax.set_title(f"{spin} us blocks: {len(late)} of {len(blocks)} "
                     "started after the flag")
        ax.set_xlabel("us from the preemption request")
        ax.set_ylabel("virtual block (by start)")
        ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)


if __name__ == "__main__":
    main()
