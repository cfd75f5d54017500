#!/usr/bin/env python3
"""Where an inference request's time goes: the colocation benchmark's
request (colocate.py's model, replayed from a CUDA graph) at one load,
Poisson arrivals, each request timed in phases on the host
(baton_lc_begin, the launch, the stream synchronize, baton_lc_end) and on
the device (an event before the launch to one after it; it includes any
time the GPU waits for the host's submission). One process, one mode:

  alone    no Baton, no training
  bracket  each request bracketed with baton_lc_begin(0)/end, no training
  time     the bracket, colocate.py's MLP training time-shared beside it
  space    the same with baton_lc_begin(--lc-sms): training keeps the rest

  python3 request_phases.py --lib libbaton_train_mlp.so --mode time
      [--model bert|cnn] [--load 0.1] [--seconds 4]

Prints p50/p90/p99 of each phase and of the latency (arrival to
completion). Run each mode in a fresh process (the library reads
BATON_SCHEDULE when it loads) and compare modes within one machine
(docs/benchmarks.md, twenty-fifth session).
"""
import argparse
import sys
import time

import colocate

MODES = ("alone", "bracket", "time", "space")
PHASES = ("lc_begin", "launch", "synchronize", "lc_end", "request",
          "device (events)")


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--lib", required=True, help="libbaton_train_mlp.so")
    p.add_argument("--mode", required=True, choices=MODES)
    p.add_argument("--model", default="bert", choices=colocate.MODELS)
    p.add_argument("--load", type=float, default=0.1)
    p.add_argument("--seconds", type=float, default=4.0)
    p.add_argument("--lc-sms", type=int, default=66,
                   help="SMs a request takes in space mode")
    args = p.parse_args()
    if not 0 < args.load < 1:
        p.error("--load is a fraction in (0, 1)")

    # colocate.py's sizes for the model and the training, at its defaults.
    sizes = colocate.parse(["--lib", args.lib, "--out", "-"])
    lib = colocate.load_training(
        args.lib, None if args.mode == "alone" else "best-effort")
    import torch
    sys.setswitchinterval(1e-4)  # as colocate.py: the trainer waits less
    stream = torch.cuda.Stream(priority=-1)
    forward, how = colocate.forward_on(sizes, args.model, stream)
    sms = {"alone": None, "bracket": 0, "time": 0, "space": args.lc_sms}
    lc_sms = sms[args.mode]
    before = torch.cuda.Event(enable_timing=True)
    after = torch.cuda.Event(enable_timing=True)

    records = []

    def request():
        t0 = time.perf_counter()
        work = lib.baton_lc_begin(lc_sms) if lc_sms is not None else 0
        t1 = time.perf_counter()
        before.record(stream)
        forward()
        after.record(stream)
        t2 = time.perf_counter()
        stream.synchronize()
        t3 = time.perf_counter()
        if lc_sms is not None:
            lib.baton_lc_end(work)
        t4 = time.perf_counter()
        records.append((t1 - t0, t2 - t1, t3 - t2, t4 - t3, t4 - t0,
                        before.elapsed_time(after) / 1e3))

    service = colocate.service_time(request, warmups=20)
    records.clear()
    trainer = None
    if args.mode in ("time", "space"):
        trainer = colocate.Trainer(lib, sizes)
        trainer.start()
        trainer.ready.wait()
        if trainer.error:
            sys.exit("training: " + trainer.error)

    # colocate.py's arrivals and serving loop, one window at one load.
    sizes.loads, sizes.window, sizes.overrun = [args.load], args.seconds, 0
    window, = colocate.serve(sizes, request, service, keep_latencies=True)
    latencies = [us / 1e6 for us in window["latencies_us"]]

    steps = 0
    if trainer:
        trainer.stop.set()
        trainer.join()
        steps = len(trainer.stamps)
    lib.baton_synchronize()

    print(f"{args.model} ({how}), mode {args.mode}, load {args.load:g}: "
          f"{len(records)} requests, {1e6 * service:.0f} us alone, "
          f"{steps} training steps")
    print(f"  {'phase':16} {'p50':>6} {'p90':>6} {'p99':>6}  (us)")
    rows = [(name, [r[i] for r in records]) for i, name in enumerate(PHASES)]
    for name, values in rows + [("latency", latencies)]:
        print(f"  {name:16}" + "".join(
            f" {1e6 * colocate.percentile(values, q):6.0f}"
            for q in (.5, .9, .99)))


if __name__ == "__main__":
    main()
