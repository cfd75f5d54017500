#!/usr/bin/env python3
"""Plots a colocate.py results.json: inference p99 against load for every
system, and the training throughput each keeps.

  plot.py results.json OUT_DIR   ->  OUT_DIR/colocation-p99.png,
                                     OUT_DIR/colocation-training.png
"""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    results = json.load(open(sys.argv[1]))
    out = sys.argv[2]
    systems = results["systems"]
    train_ref = systems["alone"]["train_alone_steps_per_s"]

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for name, s in systems.items():
        w = s.get("windows")
        if not w:
            continue
        ax.plot([x["load"] for x in w], [x["p99_ms"] for x in w], marker="o",
                label=name, linewidth=2.5 if name.startswith("baton") else 1.2)
    ax.set_yscale("log")
    ax.set_xlabel("inference load (fraction of GPU time it needs alone)")
    ax.set_ylabel("inference p99 latency (ms, log)")
    ax.set_title("Inference tail latency next to training")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(out, "colocation-p99.png"), dpi=110)

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for name, s in systems.items():
        w = s.get("windows")
        if not w or name == "alone":
            continue
        ax.plot([x["load"] for x in w],
                [x["train_steps_per_s"] / train_ref for x in w], marker="o",
                label=name, linewidth=2.5 if name.startswith("baton") else 1.2)
    loads = [x["load"] for x in systems["alone"]["windows"]]
    ax.plot(loads, [1 - l for l in loads], "k--", label="GPU time left idle")
    ax.set_xlabel("inference load")
    ax.set_ylabel("training throughput / exclusive")
    ax.set_title("Training throughput kept")
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(out, "colocation-training.png"), dpi=110)


if __name__ == "__main__":
    main()
