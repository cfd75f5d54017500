#!/usr/bin/env python3
"""Plots a colocate.py results.json: inference p99 against load for every
system, and the training throughput each keeps, one pair per model.

  plot.py results.json OUT_DIR   ->  OUT_DIR/colocation-MODEL-p99.png,
                                     OUT_DIR/colocation-MODEL-training.png

Points are medians over rounds, bars span the rounds' lowest and highest.
A results.json of the first format (one round, one model: the first runs,
and bench/torch/colocate_torch.py) gives OUT_DIR/colocation-p99.png and
OUT_DIR/colocation-training.png.
"""
import json
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


SYSTEMS = ("alone", "baton-time", "baton-space", "shared", "priority",
           "timeslice", "mps", "baton-reserve", "baton-procs",
           "baton-procs-mps", "baton-time-late", "baton", "baton-gate",
           "baton-nogate")


def style(name):
    """The same colour for a system in every plot."""
    i = SYSTEMS.index(name) if name in SYSTEMS else len(SYSTEMS)
    return {"marker": "o", "capsize": 3, "color": f"C{i % 10}",
            "linewidth": 2.5 if name.startswith("baton") else 1.2}


def plot_model(kind, systems, out):
    """systems: the summary's rows of one model, {system: [row per load]}."""
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for name, rows in systems.items():
        loads = [r["load"] for r in rows]
        mid = [r["p99_ms"] for r in rows]
        lo = [min(r["per_round"]["p99_ms"]) for r in rows]
        hi = [max(r["per_round"]["p99_ms"]) for r in rows]
        ax.errorbar(loads, mid, yerr=[[m - l for m, l in zip(mid, lo)],
                                      [h - m for m, h in zip(mid, hi)]],
                    label=name, **style(name))
    rounds = max((r["rounds"] for rows in systems.values() for r in rows),
                 default=0)
    ax.set_yscale("log")
    ax.set_xlabel("inference load (fraction of GPU time it needs alone)")
    ax.set_ylabel("inference p99 latency (ms, log)")
    ax.set_title(f"{kind}: inference tail latency next to training "
                 f"(median of {rounds} rounds)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(out, f"colocation-{kind}-p99.png"), dpi=110)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(7, 4.5))
    loads = []
    for name, rows in systems.items():
        if name == "alone":
            loads = [r["load"] for r in rows]
            continue
        rows = [r for r in rows if not math.isnan(r["kept"])]
        if not rows:
            continue
        mid = [r["kept"] for r in rows]
        ax.errorbar([r["load"] for r in rows], mid,
                    yerr=[[m - r["kept_min"] for m, r in zip(mid, rows)],
                          [r["kept_max"] - m for m, r in zip(mid, rows)]],
                    label=name, **style(name))
    if loads:
        ax.plot(loads, [1 - l for l in loads], "k--",
                label="GPU time left idle")
    ax.set_xlabel("inference load")
    ax.set_ylabel("training throughput / exclusive")
    ax.set_title(f"{kind}: training throughput kept")
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(out, f"colocation-{kind}-training.png"), dpi=110)
    plt.close(fig)


def plot_first_format(results, out):
    systems = results["systems"]
    if "alone" not in systems:
        print("no plot: the run has no 'alone' system to compare with")
        return
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


def main():
    results = json.load(open(sys.argv[1]))
    out = sys.argv[2]
    os.makedirs(out, exist_ok=True)
    if "systems" in results:
        plot_first_format(results, out)
        return
    for kind, systems in results["summary"]["models"].items():
        plot_model(kind, systems, out)


if __name__ == "__main__":
    main()
