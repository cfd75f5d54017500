#!/usr/bin/env python3
"""GPU correctness test of baton.torch: training results are unchanged.

For each model (a GPT-2-style language model, a small CNN, the GPT again
with Inductor's persistent TMA matmul template as the only GEMM candidate
where it applies, with flex_attention, and compiled with dynamic shapes,
and a small vision transformer; or, with --models, models of timm,
torchvision and transformers, zoo.py), in one process, with deterministic
settings and the same compiled kernels:

  1. reference: N steps with Baton installed but nothing routed
     (schedule="never": every launch goes to Triton's own launcher), twice:
     if the two differ, the training itself is not deterministic here and
     the comparison proves nothing (reported as such, exit status 3);
  2. routed: the same N steps from the same initial state with every
     best-effort Triton launch routed to the scheduler (schedule="always"),
     i.e. run as a PTB or slice variant;
  3. preempted: the same again while another thread opens and closes
     latency-critical brackets every few hundred microseconds, so that
     routed kernels are paused and resumed mid-flight, and, with the bypass
     gate on, the kernels that bypass Baton wait during each bracket.

The losses of every step and the final parameters must be identical, bit
for bit, across the three. It prints and writes (OUT/check-<model>.json)
the report: kernels that got variants, were refused or not routed, and
the kernels that bypass Baton in a profiled step. Exit status 0 when every
model matches and kernels were routed, 1 on a mismatch or a model that
ran past --model-timeout (every thread's stack is printed), 2 if a
phase routed nothing or ran a routed launch as the original (or, for
gpt-tma, no TMA kernel was routed), 3 if the reference itself is
not deterministic (the test would prove nothing in any of these cases),
77 (skipped) without PyTorch or a CUDA device. ctest runs it as
gpu.torch_training.

  python3 bench/torch/check_training.py [--models gpt,cnn,gpt-tma,gpt-flex,gpt-dyn,vit]
                                        [--models zoo] (every model of zoo.py)
                                        [--matmuls triton|long|library]
                                        [--steps 12]
                                        [--out DIR] [--budget 330]
                                        [--model-timeout 200]

Needs PYTHONPATH with the built package (bench/torch/run.sh sets it).
"""

import argparse
import copy
import faulthandler
import json
import os
import random
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

# Before CUDA starts: deterministic cuBLAS; Baton's driver settings. Every
# Triton kernel is routed, however short (the default routes kernels of 100
# us and more), and runs as a variant: this is a test of the variants, and
# the scheduler would otherwise run the originals of one-wave launches while
# no LC work is about, and of launches of short blocks once idle.
os.environ.setdefault("BATON_ROUTE_MIN_US", "0")
for rule in ("BATON_ONE_WAVE_ORIGINALS", "BATON_IDLE_ORIGINAL_BLOCKS_US",
             "BATON_QUIET_ORIGINALS_UP_TO_US"):
    os.environ[rule] = "0"
os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
os.environ.setdefault("CUDA_MODULE_LOADING", "EAGER")
os.environ.setdefault("CUDA_DEVICE_MAX_CONNECTIONS", "32")

import needs_torch  # noqa: E402,F401 (skipped without PyTorch)
import torch  # noqa: E402

import baton  # noqa: E402
import baton.torch  # noqa: E402
import baton.triton  # noqa: E402
from baton import _core  # noqa: E402

import workloads  # noqa: E402
import zoo  # noqa: E402


def log(msg):
    print(f"[check {time.strftime('%H:%M:%S')}] {msg}", flush=True)


class Storm:
    """Latency-critical brackets opened and closed at random, 100-800 us
    each, from another thread: routed kernels are paused and resumed, and,
    with the bypass gate on (as a latency-critical thread next to training
    turns it on), the kernels that bypass Baton wait during each bracket."""

    def __init__(self):
        self.stop = threading.Event()
        self.brackets = 0
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.gate = "off: baton._core has no bypass gate"
        self.gated = 0

    def run(self):
        rng = random.Random(7)
        while not self.stop.is_set():
            work = _core.lc_begin(0)
            time.sleep(rng.uniform(1e-4, 8e-4))
            _core.lc_end(work)
            self.brackets += 1
            time.sleep(rng.uniform(1e-4, 8e-4))

    def __enter__(self):
        if _core.HAS_BYPASS_GATE:
            why = baton.torch._gate_start()
            self.gate = "on" if not why else "off: " + why
            self.gated = _core.bypass_gate_stats()["gated"]
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join()
        if _core.HAS_BYPASS_GATE:
            self.gated = _core.bypass_gate_stats()["gated"] - self.gated
            _core.bypass_gate_stop()


def run_steps(step, data, steps):
    losses = []
    for i in range(steps):
        x, y = data[i % len(data)]
        losses.append(step(x, y))
    if _core.router_running():
        _core.synchronize()
    torch.cuda.synchronize()
    return torch.stack(losses).float().cpu()


class OnlyTma:
    """Inductor autotuning preprocessing for gpt-tma: where the persistent
    TMA template is a candidate (Inductor names its choices
    triton_mm_persistent_tma_<n>), the other GEMM candidates are dropped,
    so that the TMA kernels are the ones that run; left to autotuning, a
    faster plain template may win and nothing with TMA is routed."""

    def __init__(self):
        self.active = False

    def __call__(self, choices):
        if not self.active:
            return choices
        tma = [c for c in choices if "tma" in getattr(c, "name", "")]
        return tma or choices


ONLY_TMA = OnlyTma()


def tma_compile_settings(on):
    """Inductor settings of a model's compile: the TMA template on for
    gpt-tma, without caches (a graph or autotuning result cached without
    ONLY_TMA would be reused)."""
    from torch._inductor import config
    return config.patch({"triton.enable_persistent_tma_matmul": on,
                         "force_disable_caches": on})


def build(name):
    """(model, optimizer, batches, variant) of a check model: "gpt", "cnn",
    "gpt-tma" (the GPT with Inductor's persistent TMA matmul template for
    its GEMMs: device-side TMA descriptors in global scratch), "gpt-flex"
    (causal flex_attention: Inductor's flex attention templates),
    "gpt-dyn" (compiled with dynamic shapes: sizes are kernel arguments,
    and grids are computed from them), "vit" (a vision transformer:
    patches by a strided convolution, 65 tokens, non-causal attention), or
    a model of timm, torchvision or transformers (LIBRARY:MODEL, zoo.py)."""
    if ":" in name:
        return (*zoo.build(name), "")
    kind, _, variant = name.partition("-")
    if (kind, variant) not in (("gpt", ""), ("cnn", ""), ("gpt", "tma"),
                               ("gpt", "flex"), ("gpt", "dyn"), ("vit", "")):
        raise ValueError(f"unknown model {name!r}")
    model, opt = workloads.build(
        kind, "check", attention="flex" if variant == "flex" else "sdpa")
    return model, opt, workloads.batches(kind, "check", 4), variant


def check_model(name, args):
    """Trains the model `name` (see build) as the module docstring says."""
    log(f"{name}: building")
    model, opt, data, variant = build(name)
    tma = variant == "tma"
    # Dynamo would reuse the code compiled for an earlier model of the same
    # class (gpt-tma after gpt) without compiling it again.
    torch._dynamo.reset()
    compiled = torch.compile(model, dynamic=True if variant == "dyn" else None)
    step = workloads.make_step(compiled, opt)
    model_state = copy.deepcopy(model.state_dict())
    opt_state = copy.deepcopy(opt.state_dict())

    def reset():
        model.load_state_dict(model_state)
        opt.load_state_dict(copy.deepcopy(opt_state))
        opt.zero_grad(set_to_none=True)

    def params():
        return [p.detach().float().cpu().clone() for p in model.parameters()]

    baton.torch.set_schedule("never")
    t = time.time()
    log(f"{name}: compiling (one step)")
    ONLY_TMA.active = tma
    try:
        with tma_compile_settings(tma):
            run_steps(step, data, 1)
    finally:
        ONLY_TMA.active = False
    log(f"{name}: compiled in {time.time() - t:.1f} s")
    reset()
    since = time.monotonic()  # kernels of the steps, not autotuning's
    reference = run_steps(step, data, args.steps)
    ref_params = params()
    log(f"{name}: reference losses {reference[0]:.6f} .. {reference[-1]:.6f}")
    reset()
    again = run_steps(step, data, args.steps)
    deterministic = torch.equal(again, reference) and all(
        torch.equal(a, b) for a, b in zip(params(), ref_params))
    log(f"{name}: a second reference run is "
        f"{'identical' if deterministic else 'DIFFERENT (not deterministic)'}")

    t = time.time()
    ready = baton.triton.prepare_loaded(wait=True, timeout=args.prepare_timeout,
                                        launched_since=since)
    log(f"{name}: variants ready for {ready} kernels in {time.time() - t:.1f} s")

    results = {}
    for phase in ("routed", "preempted"):
        reset()
        baton.torch.set_schedule("always")
        before = _core.stats()
        if phase == "preempted":
            with Storm() as storm:
                losses = run_steps(step, data, args.steps)
            brackets = storm.brackets
            gate = f", bypass gate {storm.gate} ({storm.gated} launches held)"
        else:
            losses = run_steps(step, data, args.steps)
            brackets, gate = 0, ""
        after = _core.stats()
        baton.torch.set_schedule("never")
        delta = {k: after[k] - before[k] for k in after}
        same_loss = torch.equal(losses, reference)
        same_params = all(torch.equal(a, b) for a, b in zip(params(), ref_params))
        results[phase] = {"losses": losses.tolist(), "same_losses": same_loss,
                          "same_parameters": same_params, "scheduler": delta,
                          "brackets": brackets}
        log(f"{name}: {phase}: losses {'==' if same_loss else '!='} reference, "
            f"parameters {'==' if same_params else '!='}; routed launches "
            f"{delta['best_effort']} ({delta['originals']} as originals), "
            f"pauses {delta['pauses']}, resumes {delta['resumes']}, "
            f"brackets {brackets}{gate}")
        if not same_loss:
            for i, (a, b) in enumerate(zip(reference.tolist(), losses.tolist())):
                if a != b:
                    log(f"{name}:   step {i}: reference {a!r} {phase} {b!r}")

    # What bypasses Baton, from one profiled routed step.
    reset()
    baton.torch.set_schedule("always")
    x, y = data[0]
    profile = baton.torch.profile_bypass(lambda: step(x, y))
    baton.torch.set_schedule("never")
    rep = baton.torch.report(profile=profile, launched_since=since)
    print(str(rep), flush=True)
    doc = {"model": name, "steps": args.steps, "reference": reference.tolist(),
           "deterministic": deterministic, "phases": results, "report": rep}
    path = os.path.join(args.out, f"check-{name.replace(':', '-')}.json")
    with open(path, "w") as f:
        json.dump(doc, f, indent=1, default=str)
    ok = all(r["same_losses"] and r["same_parameters"] for r in results.values())
    # Baton's launcher routes only kernels with variants, and the rules for
    # originals are off: a routed launch that ran as the original means the
    # phase did not test what it says.
    routed = all(r["scheduler"]["best_effort"] > 0 and
                 r["scheduler"]["originals"] == 0 for r in results.values())
    features = {}
    for k in rep["kernels"]:
        if k["state"] == "ready" and k["scheduled"]:
            for f in k.get("features", ()):
                features[f] = features.get(f, 0) + 1
            # Inductor names its flex attention kernels after the op.
            if "flex_attention" in k["name"]:
                features["flex-attention"] = features.get("flex-attention",
                                                          0) + 1
    results["features"] = features
    return ok, routed, deterministic, results


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--models", default="gpt,cnn,gpt-tma,gpt-flex,gpt-dyn,vit")
    p.add_argument("--budget", type=float, default=330,
                   help="seconds: a model is not started after this")
    p.add_argument("--steps", type=int, default=12)
    p.add_argument("--matmuls", default=None,
                   help="enable(matmuls=...): library leaves GEMMs to cuBLAS "
                   "and skips their autotuning (a shorter compile)")
    p.add_argument("--out", default=os.environ.get("OUT", "."))
    p.add_argument("--prepare-timeout", type=float, default=240)
    p.add_argument("--model-timeout", type=float, default=200,
                   help="seconds: a model that takes longer has hung; every "
                   "thread's stack is printed and the run fails")
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    if not torch.cuda.is_available():
        print("SKIPPED: no CUDA device", flush=True)
        return 77
    workloads.deterministic()
    # BATON_SHARE=0: this process alone decides (no registry of other
    # processes); attention as Triton kernels: flash attention's backward
    # is not deterministic, and this way attention is routed too.
    os.environ["BATON_SHARE"] = "0"
    baton.torch.enable("best-effort", schedule="never", attention="triton",
                       matmuls=args.matmuls)
    from torch._inductor.select_algorithm import add_preprocessing_fn
    add_preprocessing_fn(ONLY_TMA)  # after Baton's preference for Triton
    log(f"torch {torch.__version__}, triton "
        f"{__import__('triton').__version__}, {torch.cuda.get_device_name()}")
    summary, status = [], 0
    start = time.time()
    models = zoo.NAMES if args.models == "zoo" else args.models.split(",")
    for kind in models:
        if time.time() - start > args.budget:
            summary.append(f"{kind}: NOT RUN (past the {args.budget:.0f} s "
                           f"budget)")
            continue
        # A hang prints where every thread is, then exits with status 1.
        faulthandler.dump_traceback_later(args.model_timeout, exit=True)
        try:
            ok, routed, deterministic, results = check_model(kind, args)
        except Exception as e:  # keep checking the other model
            import traceback
            traceback.print_exc()
            summary.append(f"{kind}: ERROR {type(e).__name__}: {e}")
            status = 1
            continue
        finally:
            faulthandler.cancel_dump_traceback_later()
        routed_n = results["routed"]["scheduler"]["best_effort"]
        originals = sum(results[phase]["scheduler"]["originals"]
                        for phase in ("routed", "preempted"))
        pauses = results["preempted"]["scheduler"]["pauses"]
        if not deterministic:
            verdict, code = "INCONCLUSIVE (training not deterministic here)", 3
        elif not ok:
            verdict, code = "FAIL", 1
        elif not routed:
            verdict, code = ("NOT ROUTED" if originals == 0 else
                             f"NOT EXERCISED ({originals} routed launches ran "
                             "as the originals)"), 2
        elif kind.endswith("-tma") and "tma" not in results["features"]:
            verdict, code = ("NOT EXERCISED (no routed kernel used TMA: "
                             "Inductor offered no TMA template here)"), 2
        elif (kind.endswith("-flex") and
              "flex-attention" not in results["features"]):
            verdict, code = ("NOT EXERCISED (no flex attention kernel was "
                             "routed)"), 2
        else:
            verdict, code = "PASS", 0
        kinds = ", ".join(f"{f} {n}" for f, n in sorted(
            results["features"].items())) or "none"
        summary.append(f"{kind}: {verdict}: losses and parameters "
                       f"{'identical' if ok else 'DIFFER'} over {args.steps} "
                       f"steps; {routed_n} launches routed a phase "
                       f"({originals} as originals), {pauses} pauses "
                       f"in the preempted run; routed kernels using {kinds}")
        if status != 1 and code:
            status = code if code == 1 else max(status, code)
    print("\n==== check_training summary ====")
    for line in summary:
        print(line)
    return status


if __name__ == "__main__":
    sys.exit(main())
