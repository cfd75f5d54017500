#!/usr/bin/env python3
"""Training alone: what Baton's choice of GEMM kernels costs against
PyTorch's defaults, and where.

Each mode trains the same torch.compile'd model in a fresh process (the
Inductor configuration is fixed at compile time), the modes interleaved
round by round so that drift hits them alike:

  defaults  torch.compile as PyTorch configures it (GEMMs to cuBLAS)
  free      max-autotune with ATen and Triton candidates, the fastest
            measured wins (Inductor's own choice)
  triton    Baton's Inductor settings without Baton: Triton templates
            wherever one can do the op (baton.torch.apply_inductor_settings)
  baton     baton.torch.enable("best-effort"), schedule "auto", no
            latency-critical client anywhere: nothing is routed
  baton-always  the same with schedule "always": every best-effort launch
            of 30 us or more routed to the scheduler, nobody preempting
  baton-library, baton-library-always  baton and baton-always with
            matmuls="library": GEMMs stay with Inductor's usual choice
            (cuBLAS), bypassing Baton
  baton-long, baton-long-always  the same with matmuls="long": Triton
            templates for products of 300 us or more in cuBLAS only

    python3 bench/torch/gemm_choice.py --out DIR [--train gpt|cnn]
        [--scale large] [--modes defaults,free,triton,baton] [--rounds 2]
        [--seconds 3] [--windows 3]

Writes DIR/<mode>-<round>.log (each child's output) and
DIR/autotune-<mode>.json (every autotuned op's candidates and timings, from
Inductor's feedback hook, where the mode autotunes), and prints a table of
steps/s per mode and its ratio to `defaults` last. Needs baton._core on
PYTHONPATH for the baton modes (bench/torch/run.sh builds it).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
MODES = ("defaults", "free", "triton", "baton", "baton-always",
         "baton-library", "baton-library-always", "baton-long",
         "baton-long-always")


def record_autotuning(path):
    """Saves each autotuned op's candidates (name, kind, time in ms) to
    `path` as Inductor reports them through add_feedback_saver."""
    from torch._inductor import select_algorithm as sa
    ops = []

    def saver(timings, name, input_nodes, *_):
        try:
            shapes = [[int(s) for s in n.get_size()] for n in input_nodes]
        except Exception:
            shapes = []
        ops.append({"op": name, "shapes": shapes, "choices": sorted(
            ({"name": getattr(c, "name", str(c)),
              "aten": isinstance(c, sa.ExternKernelCaller),
              "ms": float(t)} for c, t in timings.items()),
            key=lambda c: c["ms"])})
        with open(path, "w") as f:
            json.dump(ops, f, indent=1)

    sa.add_feedback_saver(saver)


def child(args):
    import torch
    import torch._inductor.config as config
    sys.path.insert(0, HERE)
    mode = args.child
    if mode == "free":
        config.max_autotune_gemm = True
        config.max_autotune_gemm_backends = "ATEN,TRITON"
        config.max_autotune_conv_backends = "ATEN,TRITON"
    elif mode == "triton":
        import baton.torch
        baton.torch.apply_inductor_settings("best-effort", matmuls="triton")
    elif mode.startswith("baton"):
        import baton.torch
        baton.torch.enable(
            "best-effort",
            schedule="always" if mode.endswith("-always") else "auto",
            matmuls="library" if "-library" in mode
            else "long" if "-long" in mode else "triton")
    if mode != "defaults" and args.autotune_log:
        record_autotuning(args.autotune_log)
    import workloads
    stop = threading.Event()
    start = time.monotonic()
    trainer, since = workloads.warm_trainer(args.train, args.scale, stop)
    if mode.endswith("-always"):
        import baton.triton
        baton.triton.prepare_loaded(wait=True, timeout=240,
                                    launched_since=since)
        trainer.run(stop, steps=10)  # the first routed steps time kernels
    warm_s = time.monotonic() - start
    rates = []
    for _ in range(args.windows):
        trainer.stamps.clear()
        t0 = time.time()
        while time.time() - t0 < args.seconds:
            trainer.run(stop, steps=5)
        s = trainer.stamps
        if len(s) < 2 or s[-1] <= s[0]:
            sys.exit(f"{mode}: fewer than two steps in {args.seconds} s")
        rates.append((len(s) - 1) / (s[-1] - s[0]))
    result = {"mode": mode, "steps_per_s": rates, "warm_s": warm_s}
    if mode.startswith("baton"):
        import baton.triton
        ks = baton.triton.kernels()
        result["scheduled"] = sum(k["scheduled"] for k in ks)
        result["triton_kernels"] = len(ks)
    print("RESULT " + json.dumps(result), flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--out")
    p.add_argument("--train", default="gpt", choices=("gpt", "cnn"))
    p.add_argument("--scale", default="large", choices=("bench", "large"))
    p.add_argument("--modes", default="defaults,free,triton,baton")
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--seconds", type=float, default=3.0)
    p.add_argument("--windows", type=int, default=3)
    p.add_argument("--timeout", type=float, default=420)
    p.add_argument("--child", choices=MODES, help=argparse.SUPPRESS)
    p.add_argument("--autotune-log", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        return child(args)
    if not args.out:
        p.error("--out is required")
    modes = args.modes.split(",")
    for m in modes:
        if m not in MODES:
            p.error(f"unknown mode {m!r}; one of {', '.join(MODES)}")
    os.makedirs(args.out, exist_ok=True)
    rates = {m: {} for m in modes}  # mode -> round -> median steps/s
    for r in range(args.rounds):
        order = modes[r % len(modes):] + modes[:r % len(modes)]
        for m in order:
            log = os.path.join(args.out, f"{m}-{r}.log")
            cmd = [sys.executable, os.path.abspath(__file__), "--child", m,
                   "--train", args.train, "--scale", args.scale,
                   "--seconds", str(args.seconds),
                   "--windows", str(args.windows)]
            if r == 0:
                cmd += ["--autotune-log",
                        os.path.join(args.out, f"autotune-{m}.json")]
            t = time.monotonic()
            with open(log, "w") as f:
                try:
                    subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT,
                                   timeout=args.timeout)
                except subprocess.TimeoutExpired:
                    print(f"{m} round {r}: timed out", flush=True)
                    continue
            result = None
            with open(log) as f:
                for line in f:
                    if line.startswith("RESULT "):
                        result = json.loads(line[7:])
            if result is None:
                print(f"{m} round {r}: no result (see {log})", flush=True)
                continue
            rates[m][r] = statistics.median(result["steps_per_s"])
            extra = (f", {result['scheduled']} launches scheduled"
                     if "scheduled" in result else "")
            print(f"{m} round {r}: " + " ".join(
                f"{v:.2f}" for v in result["steps_per_s"])
                + f" steps/s (warm-up {result['warm_s']:.0f} s, "
                f"{time.monotonic() - t:.0f} s in all{extra})", flush=True)
    ref = rates.get("defaults", {})
    print(f"\n{args.train} ({args.scale}) alone, median steps/s per process:")
    print("| mode | steps/s | over defaults, round by round |")
    print("| --- | --- | --- |")
    for m in modes:
        v = rates[m]
        ratios = [v[r] / ref[r] for r in sorted(v) if r in ref]
        print(f"| {m} | {' '.join(f'{v[r]:.2f}' for r in sorted(v))} | "
              + (", ".join(f"{x:.3f}" for x in ratios) or "-") + " |")


if __name__ == "__main__":
    main()
