#!/usr/bin/env python3
"""What the first latency-critical request after a quiet spell pays: the
colocation benchmark's inference job (colocate_torch.py's "baton" system:
one process, the encoder's requests in baton.torch.latency_critical()
brackets, torch.compile training beside it under enable("best-effort")),
with requests spaced --gap-ms apart instead of Poisson arrivals. With gaps
longer than the scheduler's quiet spell (100 ms), every request finds the
training job in its quiet-device policy (docs/scheduling.md): wide windows,
one-wave launches and, with BATON_QUIET_ORIGINALS_UP_TO_US, short launches
run as the originals, which no request can stop; with gaps longer than the
idle spell (1 s), launches of short blocks run as the originals too
(BATON_IDLE_ORIGINAL_BLOCKS_US).

    python3 bench/torch/quiet_first_request.py [--gap-ms 150] [--requests 40]
        [--train gpt] [--train-scale large] [--no-training] [--graph]

Prints the latency's p50/p90/max over the requests, the service time alone
(measured before training starts), and the training steps/s meanwhile.
Compare settings in fresh processes on one machine.

--graph replays the encoder (uncompiled, as colocate.py's bert) from a CUDA
graph on the thread's stream in a latency_critical() bracket, and also
prints the request's device time: CUDA events on that stream right before
and after the replay, so the host's wake-up after the gap is left out and
what remains is the wait for the SMs and the work itself.
"""
import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "colocation"))

import colocate as co  # noqa: E402
import colocate_torch as ct  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--gap-ms", type=float, default=150.0)
    p.add_argument("--requests", type=int, default=40)
    p.add_argument("--train", default="gpt", choices=("gpt", "cnn"))
    p.add_argument("--train-scale", default="large", choices=("bench", "large"))
    p.add_argument("--model-layers", type=int, default=4)
    p.add_argument("--infer-batch", type=int, default=8)
    p.add_argument("--no-training", action="store_true")
    p.add_argument("--graph", action="store_true")
    args = p.parse_args()

    import torch
    import baton.torch
    baton.torch.enable("latency-critical")
    baton.torch.set_schedule("never")  # until training is warm
    device_us = []
    if args.graph:
        request, service = graph_request(args, device_us)
    else:
        request, service = ct.prepare_inference(
            args, torch.cuda.current_stream(), bracket=True)
    device_alone = sorted(device_us)
    device_us.clear()
    trainer = None
    if not args.no_training:
        trainer = ct.start_trainer(args, "best-effort")
        baton.torch.set_schedule("auto")
        time.sleep(1.0)  # training routed and settled before the first request

    latencies = []
    started, wall = time.perf_counter(), time.time()
    for _ in range(args.requests):
        time.sleep(args.gap_ms / 1e3)
        t0 = time.perf_counter()
        request()
        latencies.append(time.perf_counter() - t0)
    elapsed = time.perf_counter() - started
    steps = 0
    if trainer:
        steps = sum(1 for s in trainer.trainer.stamps if s >= wall)
        trainer.stop.set()
        trainer.join()

    us = sorted(1e6 * x for x in latencies)
    print(f"gap {args.gap_ms:g} ms, {len(us)} requests, service alone "
          f"{1e6 * service:.0f} us, training "
          f"{'off' if trainer is None else f'{steps / elapsed:.2f} steps/s'}, "
          f"BATON_QUIET_ORIGINALS_UP_TO_US="
          f"{os.environ.get('BATON_QUIET_ORIGINALS_UP_TO_US', '-')}, "
          f"BATON_IDLE_ORIGINAL_BLOCKS_US="
          f"{os.environ.get('BATON_IDLE_ORIGINAL_BLOCKS_US', '-')}")
    print("latency us: p50 {:.0f}  p90 {:.0f}  max {:.0f}".format(
        co.percentile(us, .5), co.percentile(us, .9), us[-1]))
    if args.graph:
        dev = sorted(device_us)  # cleared after the service time
        print("device us:  p50 {:.0f}  p90 {:.0f}  max {:.0f}  (alone, 3 ms "
              "apart: p50 {:.0f})".format(
                  co.percentile(dev, .5), co.percentile(dev, .9), dev[-1],
                  co.percentile(device_alone, .5)))


def graph_request(args, device_us):
    """The encoder replayed from a CUDA graph on this thread's stream in a
    latency_critical() bracket; each request appends its device time (us)
    to `device_us`. Returns the request and its service time alone."""
    import torch
    import baton.torch
    stream = torch.cuda.current_stream()
    forward, how = co.forward_on(args, "bert", stream)
    if how != "graph":
        sys.exit(f"--graph: {how}")
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)

    def request():
        with baton.torch.latency_critical():
            start.record(stream)
            forward()
            end.record(stream)
            stream.synchronize()
        device_us.append(1e3 * start.elapsed_time(end))

    return request, co.service_time(request, warmups=20)


if __name__ == "__main__":
    main()
