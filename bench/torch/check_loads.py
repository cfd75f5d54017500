#!/usr/bin/env python3
"""GPU check: Triton module loads made while routed training waits paused.

A module load made while a routed launch waits paused on its stream never
returns (docs/scheduling.md, "Deadlocks avoided"). baton.triton holds
routed work back around every load Triton makes, once none of it is left
on the device; work that latency-critical work keeps paused is drained
after BATON_LOAD_PATIENCE_MS. The hardest case is a latency-critical
thread that compiles inside its own explicit bracket: its bracket is what
keeps the training's launches paused, so no wait for it can end, neither
a load's nor any wait for the whole device (a bracket that outlives the
lease, BATON_SHARE_LEASE_MS, stops holding the training back).

  lc-explicit  routed best-effort training of the check-size GPT runs on
               one thread; a latency-critical thread (enable(), a stream
               of its own) compiles and runs functions it has never run
               before, each inside baton.torch.latency_critical() kept
               open 300 ms first, so that the training's launches wait
               paused for that very bracket while the compile loads new
               Triton modules. Passes if every request returns within the
               limit with the eager result, the training was routed, and
               the bracket did hold it up: a load had to drain it (stats'
               "drains") or the bracket outlived its lease
               ("expired_brackets"). Without the drain it hangs
               (docs/benchmarks.md, thirty-third session, call g).
  lc-library   the same, but each function begins with a matmul, which
               Inductor leaves to cuBLAS: the thread's first cuBLAS call
               is then made inside its first bracket, unless enable()
               made it first (its warm-up, on by default;
               BATON_LC_WARM_UP=0 turns it off). A first cuBLAS call
               inside the bracket hung (thirty-third session, call d).

Prints one line per scenario and exits 0 only if every scenario passed.

  python3 bench/torch/check_loads.py [--out DIR] [--timeout 300]

Needs PYTHONPATH with the built package (bench/torch/run.sh sets it).
"""

import argparse
import os
import sys
import threading
import time

import scenarios

HERE = os.path.dirname(os.path.abspath(__file__))


def log(msg):
    print(f"[loads {time.strftime('%H:%M:%S')}] {msg}", flush=True)


def lc_explicit(args):
    # Functions of a shape and body the process has not compiled: each
    # first call compiles and loads its own Triton kernels. No library
    # kernel (lc-library has them).
    def request_fn(k):
        def fn(x, w):
            return torch.nn.functional.gelu(x * w + k).softmax(-1) * (k + 1)
        return fn

    import torch
    return lc_requests(args, "lc-explicit", request_fn,
                       lambda k: (torch.randn(64 + 8 * k, 256, device="cuda"),
                                  torch.randn(256, device="cuda")))


def lc_library(args):
    def request_fn(k):
        def fn(x, w):
            return torch.nn.functional.gelu(x @ w + k).softmax(-1) * (k + 1)
        return fn

    import torch
    return lc_requests(args, "lc-library", request_fn,
                       lambda k: (torch.randn(64 + 8 * k, 256, device="cuda"),
                                  torch.randn(256, 512, device="cuda")))


def lc_requests(args, name, request_fn, request_args):
    sys.path.insert(0, HERE)
    os.environ.setdefault("BATON_ROUTE_MIN_US", "0")
    import baton.torch
    baton.torch.enable("best-effort", schedule="never")
    import baton.triton
    import torch
    import workloads
    from baton import _core

    model, opt = workloads.build("gpt", "check")
    step = workloads.make_step(torch.compile(model), opt)
    data = workloads.batches("gpt", "check", 4)
    from torch._inductor import config
    with config.patch(max_autotune_gemm=False):
        step(*data[0])
    since = time.monotonic()
    step(*data[1])
    torch.cuda.synchronize()
    baton.triton.prepare_loaded(wait=True, timeout=120, launched_since=since)
    baton.torch.set_schedule("always")
    before = _core.stats()
    stop = threading.Event()
    result = {"requests": []}

    def trainer():
        i = 0
        while not stop.is_set():
            step(*data[i % len(data)])
            i += 1
        torch.cuda.current_stream().synchronize()
        result["train_steps"] = i

    def serve():
        try:
            # A stream of its own (enable() gives the thread one): work on
            # the training's stream would queue behind its paused launches.
            baton.torch.enable("latency-critical", slo_ms=20)
            torch.manual_seed(3)
            for k in range(args.requests):
                x, w = request_args(k)
                fn = request_fn(k)
                with torch.no_grad(), config.patch(max_autotune_gemm=False):
                    start = time.monotonic()
                    with baton.torch.latency_critical():
                        # Longer than the training thread waits on the
                        # host for a bracket (BATON_BE_GATE_MAX_MS, 100):
                        # its launches are then issued paused, whether
                        # this compile is slow or a cache hit.
                        time.sleep(0.3)
                        out = torch.compile(fn, dynamic=False)(x, w)
                    took = time.monotonic() - start
                    diff = float((out - fn(x, w)).abs().max())
                log(f"{name}: request {k}: compiled and ran in "
                    f"{took * 1e3:.0f} ms, max |diff| {diff:.2e}")
                result["requests"].append({"ms": took * 1e3,
                                           "max_abs_diff": diff})
        except Exception as e:  # reported, not raised in the thread
            result["error"] = f"{type(e).__name__}: {e}"

    t = threading.Thread(target=trainer)
    t.start()
    time.sleep(0.5)  # the training's routed launches are flowing
    server = threading.Thread(target=serve)
    server.start()
    server.join()
    stop.set()
    t.join()
    _core.synchronize()
    delta = {k: v - before[k] for k, v in _core.stats().items()}
    result["scheduler"] = delta
    ok = (len(result["requests"]) == args.requests
          and all(r["max_abs_diff"] < 1e-3 for r in result["requests"])
          and delta["best_effort"] > 0
          and delta["drains"] + delta["expired_brackets"] > 0)
    return ok, result


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--requests", type=int, default=4)
    return scenarios.main(p, {"lc-explicit": lc_explicit,
                              "lc-library": lc_library}, "loads", 300, log)


if __name__ == "__main__":
    sys.exit(main())
