#!/usr/bin/env python3
"""GPU check: latency-critical work waits for at most one kernel that
bypasses Baton.

Kernels Baton cannot pause (cuBLAS, cuDNN, ATen's own) run as they are on
the training job's stream. Two things keep a latency-critical request from
waiting behind a queue of them: enable("latency-critical") gives its
thread a stream of the highest priority, so the GPU dispatches the
request's blocks ahead of those of kernels still queued; and the bypass
gate (python/src/BypassGate.h; on by default, and this check sets
BATON_BYPASS_GATE=1) queues, before each launch of a best-effort thread,
a wait on a word that is set while a latency-critical bracket is open, so
that no such kernel starts during a request: it waits for the one kernel
that runs (docs/torch.md, "What bypasses Baton"). This check measures
both.

  queued-products  a best-effort thread (enable("best-effort")) keeps
                   --depth cuBLAS products (--size square, fp16, eager:
                   they bypass Baton) queued on its stream. The
                   latency-critical thread (enable("latency-critical"))
                   issues small requests (four products and ReLUs of
                   512 x 512), each in a latency_critical() bracket, at
                   gaps of 2-5 ms. Three phases: the requests alone; next
                   to the queue; and, as the control, next to the queue
                   but on the training stream itself, which is what a
                   request without a stream of its own waits for. Passes
                   if next to the queue the p99 stays within the p99
                   alone plus one product's time (and 0.25 ms for the
                   host), and every request within the slowest alone plus
                   as much; the control's median waited for at least four
                   products (the queue was deep and the measurement sees
                   it); the queue held at least half of --depth while
                   requests ran; Baton took every bracket; and, when the
                   requests ended, the gate was on and listening, had been
                   set in every bracket and had queued a wait before every
                   product launched while they ran (it may sleep before
                   them, and the control, without brackets, may find it
                   asleep).
  ungated          the same with the gate off (BATON_BYPASS_GATE=0): what
                   the stream priority alone gives, for comparison. Passes
                   if the measurement is valid (control, depth, brackets);
                   its latencies are reported, not judged: a product queued
                   behind the running one can take the SMs between two of
                   a request's kernels (H200: 1 of 1,200 requests waited
                   about two products, docs/benchmarks.md).

Prints one line per scenario and exits 0 only if every scenario passed; 77
(skipped) without PyTorch or a CUDA device.

  python3 bench/torch/check_bypass.py [--out DIR] [--size 8192] [--depth 24]
                                      [--requests 1000] [--timeout 300]

Needs PYTHONPATH with the built package (bench/torch/run.sh sets it).
"""

import argparse
import collections
import os
import random
import sys
import threading
import time

import needs_torch  # noqa: F401 (skipped without PyTorch)
import torch

import scenarios


def log(msg):
    print(f"[bypass {time.strftime('%H:%M:%S')}] {msg}", flush=True)


def percentile(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class ProductQueue(threading.Thread):
    """The best-effort thread: keeps `depth` products queued on its stream,
    each followed by an event, and waits for the oldest before issuing
    more."""

    def __init__(self, size, depth):
        super().__init__(daemon=True)
        self.size, self.depth = size, depth
        self.ready = threading.Event()
        self.stop = threading.Event()
        self.error = None
        self.stream = None
        self.launched = 0
        self._lock = threading.Lock()
        self._pending = collections.deque()  # events of issued products

    def queued(self):
        """Products issued and not yet complete."""
        with self._lock:
            return sum(1 for e in self._pending if not e.query())

    def run(self):
        try:
            import baton.torch
            baton.torch.enable("best-effort", inductor=False)
            self.stream = torch.cuda.current_stream()
            a = torch.randn(self.size, self.size, device="cuda",
                            dtype=torch.float16) / self.size ** 0.5
            b, c = torch.randn_like(a), torch.empty_like(a)
            torch.mm(a, b, out=c)
            self.stream.synchronize()
            self.ready.set()
            while not self.stop.is_set():
                with self._lock:
                    full = len(self._pending) >= self.depth
                    oldest = self._pending[0] if full else None
                if oldest is not None:
                    oldest.synchronize()
                    with self._lock:
                        self._pending.popleft()
                    continue
                torch.mm(a, b, out=c)
                done = torch.cuda.Event()
                done.record()
                with self._lock:
                    self._pending.append(done)
                self.launched += 1
            self.stream.synchronize()
        except Exception as e:  # reported by the scenario
            import traceback
            traceback.print_exc()
            self.error = f"{type(e).__name__}: {e}"
            self.ready.set()


def product_ms(size, repeats=10):
    """One product's time alone, on a stream of its own."""
    a = torch.randn(size, size, device="cuda", dtype=torch.float16)
    b, c = torch.randn_like(a), torch.empty_like(a)
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        torch.mm(a, b, out=c)
        start, end = torch.cuda.Event(True), torch.cuda.Event(True)
        start.record()
        for _ in range(repeats):
            torch.mm(a, b, out=c)
        end.record()
    end.synchronize()
    return start.elapsed_time(end) / repeats


def queued_products(args):
    os.environ["BATON_BYPASS_GATE"] = "1"
    return queued(args, gated=True)


def ungated(args):
    os.environ["BATON_BYPASS_GATE"] = "0"
    return queued(args, gated=False)


def queued(args, gated):
    import baton.torch
    from baton import _core

    def gate_stats():
        return (_core.bypass_gate_stats()
                if getattr(_core, "HAS_BYPASS_GATE", False) else {})
    # Before CUDA starts: this thread is latency-critical, on a stream of
    # the highest priority.
    baton.torch.enable("latency-critical", inductor=False)
    lc_stream = torch.cuda.current_stream()
    x = torch.randn(512, 512, device="cuda", dtype=torch.float16)
    w = torch.randn_like(x) / 512 ** 0.5

    def request():
        y = x
        for _ in range(4):
            y = torch.relu(y @ w)
        return y

    rng = random.Random(1)
    queue = None

    def serve(stream, bracket, count):
        latencies, depths = [], []
        for _ in range(count):
            time.sleep(rng.uniform(0.002, 0.005))
            depths.append(queue.queued() if queue else 0)
            start = time.perf_counter()
            with torch.cuda.stream(stream):
                if bracket:
                    with baton.torch.latency_critical():
                        request()  # the bracket waits for the stream
                else:
                    # The request's own end: a sync of the stream would
                    # also wait for products queued after it.
                    done = torch.cuda.Event()
                    request()
                    done.record()
                    done.synchronize()
            latencies.append((time.perf_counter() - start) * 1e3)
        return latencies, depths

    for _ in range(20):
        serve(lc_stream, True, 1)
    product = product_ms(args.size)
    log(f"one {args.size}^3 fp16 product: {product:.3f} ms")
    alone, _ = serve(lc_stream, True, args.requests)
    queue = ProductQueue(args.size, args.depth)
    queue.start()
    queue.ready.wait()
    if queue.error:
        return False, {"error": "best-effort thread: " + queue.error}
    deadline = time.time() + 30
    while queue.queued() < args.depth - 1 and time.time() < deadline:
        time.sleep(0.001)
    # Read the gate's count after the products', here and below: a product
    # counted launched has passed the gate's callback. One product in
    # flight at the start may count as launched but not gated.
    launched_before = queue.launched
    gated_before = gate_stats().get("gated", 0)
    beside, depths = serve(lc_stream, True, args.requests)
    # The control has no brackets: the gate may fall asleep during it (and
    # during report(), which can take longer than its idle second).
    launched_beside = queue.launched - launched_before
    gate_beside = gate_stats()
    gated_beside = gate_beside.get("gated", 0) - gated_before
    control, control_depths = serve(queue.stream, False,
                                    max(args.requests // 4, 20))
    queue.stop.set()
    queue.join()
    if queue.error:
        return False, {"error": "best-effort thread: " + queue.error}
    asked = time.perf_counter()
    report = baton.torch.report()
    report_s = time.perf_counter() - asked
    brackets = report.get("scheduler", {}).get("brackets", 0)
    gate = report.get("bypass_gate", {})

    def summary(values):
        return {"p50_ms": percentile(values, 0.5),
                "p99_ms": percentile(values, 0.99), "max_ms": max(values)}

    detail = {"product_ms": product, "size": args.size, "depth": args.depth,
              "alone": summary(alone), "beside_queue": summary(beside),
              "control_same_stream": summary(control),
              "mean_queued_beside": sum(depths) / len(depths),
              "mean_queued_control": (sum(control_depths) /
                                      len(control_depths)),
              "products_launched": queue.launched,
              "products_launched_beside": launched_beside,
              "gated_beside": gated_beside,
              "brackets": brackets, "bypass_gate": gate,
              "bypass_gate_beside": gate_beside, "report_s": report_s}
    bound = detail["alone"]["p99_ms"] + product + 0.25
    max_bound = detail["alone"]["max_ms"] + product + 0.25
    checks = {
        "the control waited for at least four products":
            detail["control_same_stream"]["p50_ms"] >=
            detail["alone"]["p50_ms"] + 4 * product,
        "the queue held at least half its depth":
            detail["mean_queued_beside"] >= args.depth / 2,
        "Baton took every bracket": brackets >= 2 * args.requests,
    }
    if gated:
        checks.update({
            "p99 beside the queue within alone's p99 + one product":
                detail["beside_queue"]["p99_ms"] <= bound,
            "every request beside the queue within alone's max + one product":
                detail["beside_queue"]["max_ms"] <= max_bound,
            "the gate was on, listening, set in every bracket, and queued "
            "a wait before every product until the requests ended":
                gate_beside.get("on", False) and
                gate_beside.get("listening", False) and
                gate_beside.get("holds", 0) >= args.requests and
                gated_beside >= launched_beside - 1,
        })
    else:
        checks["the gate was off"] = not gate.get("on", False)
    detail["bound_ms"] = bound
    detail["max_bound_ms"] = max_bound
    detail["checks"] = checks
    # Last, so the printed summary (cut at 2000 characters) keeps the rest.
    detail["latencies_ms"] = {"alone": alone, "beside_queue": beside,
                              "control_same_stream": control}
    if gate.get("listen_error"):
        log(f"gate: CUPTI refused: {gate['listen_error']}")
    log(f"gate {gate.get('state', '?')} ({gate.get('sleeps', 0)} sleeps, "
        f"{gate.get('wakes', 0)} wakes); alone p99 "
        f"{detail['alone']['p99_ms']:.3f} ms, max "
        f"{detail['alone']['max_ms']:.3f}; beside "
        f"{detail['mean_queued_beside']:.1f} queued products p50 "
        f"{detail['beside_queue']['p50_ms']:.3f} p99 "
        f"{detail['beside_queue']['p99_ms']:.3f} (bound {bound:.3f}), max "
        f"{detail['beside_queue']['max_ms']:.3f} (bound {max_bound:.3f}); "
        f"control on the training stream p50 "
        f"{detail['control_same_stream']['p50_ms']:.3f} ms")
    for what, ok in checks.items():
        log(f"{'ok  ' if ok else 'FAIL'} {what}")
    return all(checks.values()), detail


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--size", type=int, default=8192)
    p.add_argument("--depth", type=int, default=24,
                   help="products kept queued (at least 8: the control must "
                   "wait for four)")
    p.add_argument("--requests", type=int, default=1000)
    if p.parse_known_args()[0].depth < 8:
        p.error("--depth must be at least 8")
    # The parent only: a scenario's process enables Baton before CUDA starts.
    if "--run" not in sys.argv and not torch.cuda.is_available():
        print("SKIPPED: no CUDA device", flush=True)
        return 77
    return scenarios.main(p, {"queued-products": queued_products,
                              "ungated": ungated}, "bypass", 300, log)


if __name__ == "__main__":
    sys.exit(main())
