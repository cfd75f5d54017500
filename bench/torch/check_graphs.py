#!/usr/bin/env python3
"""GPU correctness test of baton.torch under CUDA graph capture.

Baton cannot schedule a graph's replays: the driver replays the captured
kernels itself. A Triton launch made while its stream is capturing must
therefore be captured as the original kernel, for both classes, and
nothing of Baton's own (events, private streams, host functions, queries
of the capturing stream) may touch the capture. Each scenario runs in a
process of its own (a broken capture can leave the context unusable):

  be-trees    best-effort training of the check-size GPT compiled with
              mode="reduce-overhead" (Inductor's CUDA graph trees: warm-up
              runs, then a capture in thread-local mode, then replays)
              with routing on
              ("always"): the capture succeeds, and losses equal, bit for
              bit, those of the same training with nothing routed.
  be-manual   a function compiled in the default mode, run routed, then
              captured in global mode (CUDAGraph.capture_begin: every
              thread's unsafe CUDA calls would break it) while routed
              launches of a storm are still in flight on another stream
              (checked), and replayed: the replay's output equals the
              function's output without Baton.
  lc-trees    a latency-critical thread (enable("latency-critical")) runs
              a model compiled with mode="reduce-overhead" (its warm-up
              launches open brackets, the captured ones must not) next to
              routed best-effort training on another thread: outputs match
              the model's eager outputs, training was routed, and the
              bracket closed after the last request.

Prints one line per scenario and exits 0 only if every scenario passed.

  python3 bench/torch/check_graphs.py [--scenarios be-trees,be-manual,lc-trees]
                                      [--out DIR] [--timeout 240]

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
    print(f"[graphs {time.strftime('%H:%M:%S')}] {msg}", flush=True)


def setup():
    """Imports in the scenario's process, in the order baton needs."""
    sys.path.insert(0, HERE)
    os.environ.setdefault("BATON_ROUTE_MIN_US", "0")
    os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    import baton.torch  # noqa: F401  (enable() before CUDA starts)
    import torch
    import workloads
    return torch, workloads


def stats_delta(before, after):
    return {k: after[k] - before[k] for k in after}


def train(torch, workloads, mode, steps):
    """Losses of `steps` steps of a fresh check-size GPT compiled in
    `mode`, from seed 0."""
    torch._dynamo.reset()
    model, opt = workloads.build("gpt", "check")
    compiled = torch.compile(model, mode=mode)
    step = workloads.make_step(compiled, opt)
    data = workloads.batches("gpt", "check", 4)
    losses = []
    for i in range(steps):
        x, y = data[i % len(data)]
        # Graph trees reuse their output buffers: copy before the next step.
        losses.append(step(x, y).clone())
    torch.cuda.synchronize()
    return torch.stack(losses).float().cpu()


def be_trees(args):
    torch, workloads = setup()
    import baton.torch
    import baton.triton
    from baton import _core
    workloads.deterministic()
    baton.torch.enable("best-effort", schedule="never")
    reference = train(torch, workloads, "reduce-overhead", args.steps)
    baton.torch.set_schedule("always")
    before = _core.stats()
    routed = train(torch, workloads, "reduce-overhead", args.steps)
    _core.synchronize()
    delta = stats_delta(before, _core.stats())
    rep = baton.torch.report()
    same = torch.equal(routed, reference)
    # The graph trees run every kernel once before they capture it, on
    # launches that may come before its variants are ready: routed
    # launches are not required here (be-manual has them).
    return same and rep["captured"] > 0, {
        "same_losses": same, "reference": reference.tolist(),
        "routed": routed.tolist(), "scheduler": delta,
        "captured": rep.get("captured"), "bypass": rep.get("bypass")}


def be_manual(args):
    torch, workloads = setup()
    import baton.torch
    import baton.triton
    from baton import _core
    # Compiled (and autotuned) unrouted: routed, autotuning's benchmark
    # launches would each pay a submit and time that.
    baton.torch.enable("best-effort", schedule="never")

    def fn(a, b):
        return torch.nn.functional.gelu(a @ b) * 0.5 + a.sum(dim=1,
                                                             keepdim=True)

    f = torch.compile(fn)
    # Long routed launches, to be in flight while the capture runs.
    busy = torch.compile(lambda t: torch.sin(t) * 2.0 + 1.0)
    g = torch.Generator(device="cuda").manual_seed(3)
    a = torch.randn(512, 512, device="cuda", generator=g)
    b = torch.randn(512, 512, device="cuda", generator=g)
    big = torch.randn(1 << 26, device="cuda", generator=g)
    before = _core.stats()
    f(a, b)  # compiles (and autotunes: candidates not kept are launched)
    busy(big)
    since = time.monotonic()
    f(a, b)
    busy(big)
    baton.triton.prepare_loaded(wait=True, timeout=120, launched_since=since)
    baton.torch.set_schedule("always")
    for _ in range(3):  # routed
        f(a, b)
    torch.cuda.synchronize()
    storm = torch.cuda.Stream()
    with torch.cuda.stream(storm):
        for _ in range(20):
            busy(big)
    graph = torch.cuda.CUDAGraph()
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    # capture_begin itself, not torch.cuda.graph, which synchronises the
    # device first: the storm's routed launches are still queued or running,
    # and the scheduler's thread polls them during this global-mode capture.
    with torch.cuda.stream(side):
        in_flight = not storm.query()
        graph.capture_begin(capture_error_mode="global")
        try:
            captured_out = f(a, b)
        finally:
            graph.capture_end()
    a2 = torch.randn(512, 512, device="cuda", generator=g)
    a.copy_(a2)
    graph.replay()
    torch.cuda.synchronize()
    _core.synchronize()
    delta = stats_delta(before, _core.stats())
    baton.torch.set_schedule("never")
    expected = f(a, b)
    torch.cuda.synchronize()
    same = torch.equal(captured_out, expected)
    rep = baton.torch.report()
    ok = (same and in_flight and delta["best_effort"] > 0
          and rep["captured"] > 0)
    return ok, {
        "same_output": same, "storm_in_flight_at_capture": in_flight,
        "scheduler": delta, "captured": rep.get("captured"),
        "max_abs_diff": float((captured_out - expected).abs().max())}


def lc_trees(args):
    torch, workloads = setup()
    import baton.torch
    import baton.triton
    from baton import _core
    baton.torch.enable("best-effort", schedule="never")  # as in be-manual
    result = {}

    def serve():
        try:
            log("lc-trees: serving thread starts")
            baton.torch.enable("latency-critical", slo_ms=20)
            torch.manual_seed(5)
            net = torch.nn.Sequential(
                torch.nn.Linear(256, 1024), torch.nn.GELU(),
                torch.nn.LayerNorm(1024), torch.nn.Linear(1024, 256)).cuda()
            x = torch.randn(8, 256, device="cuda")
            # The best-effort side's max_autotune_gemm is global: inference
            # keeps Inductor's default GEMMs (no autotuning during the run).
            from torch._inductor import config
            with torch.no_grad(), config.patch(max_autotune_gemm=False):
                eager = net(x)
                compiled = torch.compile(net, mode="reduce-overhead")
                outs = []
                for i in range(8):
                    log(f"lc-trees: request {i}")
                    outs.append(compiled(x + i).clone())
                    eager_i = net(x + i)
                    outs[-1] = (outs[-1], eager_i)
            torch.cuda.current_stream().synchronize()
            worst = max(float((o - e).abs().max()) for o, e in outs)
            result["max_abs_diff"] = worst
            result["eager_norm"] = float(eager.norm())
            result["ok"] = worst < 1e-3
        except Exception as e:  # reported, not raised in the thread
            result["error"] = f"{type(e).__name__}: {e}"
            result["ok"] = False

    stop = threading.Event()
    model, opt = workloads.build("gpt", "check")
    step = workloads.make_step(torch.compile(model), opt)
    data = workloads.batches("gpt", "check", 4)
    # Compiled before the server starts, without GEMM autotuning: on a
    # machine whose autotuning cache is cold it took minutes (call l); the
    # pointwise and per-row kernels are what this scenario routes.
    from torch._inductor import config
    with config.patch(max_autotune_gemm=False):
        step(*data[0])
    since = time.monotonic()  # autotuning's candidates were launched before
    step(*data[1])
    torch.cuda.synchronize()
    baton.triton.prepare_loaded(wait=True, timeout=120, launched_since=since)
    baton.torch.set_schedule("always")
    before = _core.stats()

    def trainer():
        i = 0
        while not stop.is_set():
            step(*data[i % len(data)])
            torch.cuda.current_stream().synchronize()
            i += 1
        result["train_steps"] = i

    t = threading.Thread(target=trainer)
    t.start()
    server = threading.Thread(target=serve)
    server.start()
    server.join()
    # The LC thread's bracket closes once the streams it touched are idle
    # and the grace has passed.
    deadline = time.monotonic() + 2.0
    while _core.lc_open() and time.monotonic() < deadline:
        time.sleep(0.01)
    result["bracket_closed"] = not _core.lc_open()
    stop.set()
    t.join()
    _core.synchronize()
    result["scheduler"] = stats_delta(before, _core.stats())
    result["captured"] = baton.torch.report()["captured"]
    ok = (result.get("ok", False) and result["captured"] > 0
          and result["bracket_closed"]
          and result["scheduler"]["best_effort"] > 0
          and result["scheduler"]["auto_brackets"] > 0)
    return ok, result


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--steps", type=int, default=8)
    return scenarios.main(p, {"be-trees": be_trees, "be-manual": be_manual,
                              "lc-trees": lc_trees}, "graphs", 240, log)


if __name__ == "__main__":
    sys.exit(main())
