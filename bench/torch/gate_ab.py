#!/usr/bin/env python3
"""The bypass gate, A/B in one process: what it costs and what it buys.

One process, as colocate_torch.py's `baton` system: a training thread
under enable("best-effort") (--train gpt|cnn, torch.compile) and the
inference thread (the compiled BERT-style encoder, enable("latency-
critical"), each request in a latency_critical() bracket). The gate is
switched with baton.torch.set_bypass_gate between phases of equal length,
off and on in alternating order, so both sides see the same kernels,
clocks and machine (separate runs of the same training job alone differed
by up to 30% on the H200, docs/benchmarks.md).

Phases, each --rounds times, gate off and on:
  idle    training; the inference thread enabled but idle. The gate's
          cost to training when it holds nothing. `on` is the gate as
          enable() starts it, which stops listening after an idle second
          (BATON_BYPASS_GATE_IDLE_MS); `awake` never stops: a wait queued
          before each bypassing launch, and CUPTI's callback on every
          launch; `callback` never stops either but has no thread
          best-effort for it: CUPTI's callback alone, no waits.
  served  Poisson requests at --load of the encoder's GPU time alone
          (the same arrivals for off and on within a round): p50/p99, and
          training steps/s in the window.
  alone   training stopped, the same requests by themselves: the p99
          reference, and the callback's cost to the inference launches.

  gate_ab.py --out DIR [--train cnn] [--rounds 3] [--window 4] [--load 0.5]
             [--phases idle,served,alone]
writes DIR/gate_ab.json and prints a table last. Needs PYTHONPATH with
the built package (bench/torch/run.sh sets it).
"""

import argparse
import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import colocate_torch as ct  # noqa: E402  (workers, encoder, serve())
from colocate_torch import co  # noqa: E402

PHASES = ("idle", "served", "alone")
ORDERS = (("off", "on"), ("on", "off"))  # alternated round by round
IDLE_ORDERS = (("off", "callback", "awake", "on"),
               ("on", "awake", "callback", "off"))
COUNTS = ("gated", "holds", "expired", "sleeps")


def gate_counts():
    import baton.torch
    g = baton.torch.report()["bypass_gate"]
    return {k: g.get(k, 0) for k in COUNTS}


def switch(state, idle_ms):
    """Gate `off`, `on` (asleep after idle_ms with no bracket), `awake`
    (never asleep), or `callback`: never asleep, with no thread
    best-effort for it. Each state starts the gate afresh; its classes
    come back from baton.triton's table."""
    import baton.torch
    import baton.triton as bt
    from baton import _core
    baton.torch.set_bypass_gate(False)
    os.environ["BATON_BYPASS_GATE_IDLE_MS"] = (
        str(idle_ms) if state == "on" else "0")
    got = baton.torch.set_bypass_gate(state != "off")
    if (got == "on") != (state != "off"):
        sys.exit(f"gate_ab: the bypass gate did not turn {state}: {got}")

    def gate_class(cls):
        return "none" if state == "callback" else bt._gate_class(cls)

    for ident, cls in bt._STATE.thread_class.items():
        _core.bypass_gate_thread_class(ident, gate_class(cls))
    _core.bypass_gate_default_class(gate_class(bt._STATE.default_class))


def measured(fn):
    """Runs fn() and returns its result with the gate's counts over it."""
    before = gate_counts()
    out = fn()
    after = gate_counts()
    out.update({k: after[k] - before[k] for k in after})
    return out


def run(args):
    import torch  # noqa: F401
    import baton.torch
    sys.setswitchinterval(1e-4)  # as colocate_torch: less waiting on the GIL
    baton.torch.enable("latency-critical")
    baton.torch.set_schedule("never")  # until training is warm
    request, service = ct.prepare_inference(
        args, torch.cuda.current_stream(), bracket=True)
    ct.log(f"encoder: {1e3 * service:.3f} ms a request alone")
    trainer = ct.start_trainer(args, "best-effort")
    baton.torch.set_schedule("auto")
    stamps = trainer.trainer.stamps
    args.loads = [args.load]
    rows = []

    def idle():
        start = time.time()
        time.sleep(args.window)
        end = time.time()
        return {"steps_per_s": co.steps_per_second(list(stamps), start, end)}

    def served(seed):
        def fn():
            w = co.serve(args, request, service, seed=seed)[0]
            w["steps_per_s"] = co.steps_per_second(list(stamps), w["start"],
                                                   w["end"])
            return w
        return fn

    for phase in [p for p in ("idle", "served") if p in args.phases]:
        for r in range(args.rounds):
            orders = IDLE_ORDERS if phase == "idle" else ORDERS
            for state in orders[r % 2]:
                switch(state, args.idle_ms)
                if phase == "idle":
                    time.sleep(0.5)  # launches queued before the switch
                row = measured(idle if phase == "idle" else served(r + 1))
                row.update(phase=phase, round=r, gate=state)
                rows.append(row)
                ct.log(f"{phase} {r} gate {state}: " + json.dumps(
                    {k: round(v, 3) if isinstance(v, float) else v
                     for k, v in row.items()
                     if k not in ("start", "end", "phase", "round", "gate")}))
    trainer.stop.set()
    trainer.join()
    torch.cuda.synchronize()
    for _ in range(20):  # the first requests after training settle in
        request()
        time.sleep(0.003)
    for r in range(args.rounds if "alone" in args.phases else 0):
        for state in ORDERS[r % 2]:
            switch(state, args.idle_ms)
            row = measured(served(r + 1))
            row.pop("steps_per_s")
            row.update(phase="alone", round=r, gate=state)
            rows.append(row)
    report = baton.torch.report()
    return {"train": args.train, "load": args.load, "window": args.window,
            "service_ms": 1e3 * service, "rows": rows,
            "bypass": report.get("bypass"),
            "bypass_gate": report.get("bypass_gate")}


def summary(result):
    """Per phase and gate state: the median over rounds of each figure."""
    table = {}
    for row in result["rows"]:
        key = (row["phase"], row["gate"])
        for k in ("p50_ms", "p99_ms", "steps_per_s") + COUNTS:
            if k in row:
                table.setdefault(key, {}).setdefault(k, []).append(row[k])
    return {f"{p}/{g}": {k: statistics.median(v) for k, v in d.items()}
            for (p, g), d in table.items()}


def print_table(result, med):
    alone = med.get("alone/off", {}).get("p99_ms")
    print(f"==== bypass gate A/B ({result['train']} training, load "
          f"{result['load']}, {len(result['rows'])} windows of "
          f"{result['window']} s; medians over rounds) ====")
    print(f"{'phase/gate':<14} {'p50 ms':>8} {'p99 ms':>8} {'p99/alone':>9} "
          f"{'steps/s':>8} {'gated':>7} {'holds':>6} {'sleeps':>6}")
    for key, d in sorted(med.items(), key=lambda kv: PHASES.index(
            kv[0].split("/")[0])):
        p99 = d.get("p99_ms")
        ratio = f"{p99 / alone:9.2f}" if p99 and alone else f"{'':>9}"
        p50 = f"{d['p50_ms']:8.3f}" if "p50_ms" in d else f"{'':>8}"
        p99s = f"{p99:8.3f}" if p99 else f"{'':>8}"
        steps = (f"{d['steps_per_s']:8.1f}" if "steps_per_s" in d
                 else f"{'':>8}")
        print(f"{key:<14} {p50} {p99s} {ratio} {steps} {d['gated']:7.0f} "
              f"{d['holds']:6.0f} {d['sleeps']:6.0f}")
    gate = result.get("bypass_gate") or {}
    print("most gated: " + ", ".join(f"{name[:60]} x{n}" for name, n in
                                      gate.get("most_gated", [])[:5]))


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--out", required=True)
    p.add_argument("--train", default="cnn", choices=("gpt", "cnn"))
    p.add_argument("--train-scale", default="bench", choices=("bench", "large"))
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--window", type=float, default=4.0,
                   help="seconds of each phase")
    p.add_argument("--load", type=float, default=0.5)
    p.add_argument("--idle-ms", type=float, default=float(
        os.environ.get("BATON_BYPASS_GATE_IDLE_MS", "1000")),
                   help="the `on` gate's idle time (BATON_BYPASS_GATE_IDLE_MS)")
    p.add_argument("--phases", default=",".join(PHASES),
                   help="which of idle, served, alone to run")
    p.add_argument("--model-layers", type=int, default=4)
    p.add_argument("--infer-batch", type=int, default=8)
    args = p.parse_args()
    args.phases = args.phases.split(",")
    if not set(args.phases) <= set(PHASES):
        p.error(f"--phases: each of {', '.join(PHASES)}")
    os.makedirs(args.out, exist_ok=True)
    result = run(args)
    result["summary"] = summary(result)
    with open(os.path.join(args.out, "gate_ab.json"), "w") as f:
        json.dump(result, f, indent=1, default=str)
    print_table(result, result["summary"])


if __name__ == "__main__":
    main()
