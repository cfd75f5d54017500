"""Training alone under baton.torch: steps/s as the shortest kernel that
is routed to the scheduler changes (baton.triton.set_routing's
min_route_us), against the same process with nothing routed, measured
before and after so that drift shows.

    python3 bench/torch/route_threshold.py [--train gpt|cnn] [--scale bench|large]
                                           [--thresholds 30,100,200,0]
                                           [--seconds 4] [--repeat 1]

Run with baton._core on PYTHONPATH (bench/torch/run.sh builds it into
build-torch/python) on a GPU machine.
"""
import argparse
import os
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--train", default="gpt", choices=("gpt", "cnn"))
    p.add_argument("--scale", default="bench", choices=("bench", "large"))
    p.add_argument("--thresholds", default="30,100,200,0",
                   help="min_route_us values, in us (0: every kernel)")
    p.add_argument("--seconds", type=float, default=4.0)
    p.add_argument("--repeat", type=int, default=1,
                   help="windows: unrouted, then each threshold, this many "
                        "times, then unrouted once more")
    args = p.parse_args()
    if args.repeat < 1:
        p.error("--repeat must be at least 1")

    import baton.torch
    import baton.triton
    baton.torch.enable("best-effort")
    import workloads
    stop = threading.Event()
    trainer, since = workloads.warm_trainer(args.train, args.scale, stop)
    baton.triton.prepare_loaded(wait=True, timeout=240, launched_since=since)

    def steps_per_s():
        trainer.run(stop, steps=10)  # the first routed steps time kernels
        trainer.stamps.clear()
        start = time.time()
        while time.time() - start < args.seconds:
            trainer.run(stop, steps=5)
        s = trainer.stamps
        return (len(s) - 1) / (s[-1] - s[0])

    rows = []
    for _ in range(args.repeat):
        baton.torch.set_schedule("never")
        rows.append(("not routed", steps_per_s()))
        baton.torch.set_schedule("always")
        for us in (float(x) for x in args.thresholds.split(",")):
            baton.triton.set_routing(True, min_route_us=us)
            rows.append((f">= {us:g} us routed" if us
                         else "every kernel routed", steps_per_s()))
    baton.torch.set_schedule("never")
    rows.append(("not routed, again", steps_per_s()))
    ref = rows[0][1]
    print(f"{args.train} training alone, {args.scale} size:")
    for label, v in rows:
        print(f"  {label:<22} {v:7.2f} steps/s  {v / ref:.3f}x")
    if args.repeat > 1:
        # Each routed window against the unrouted rate interpolated between
        # the unrouted windows before and after it: drift within the
        # process that is linear in time cancels out.
        plain = [i for i, (label, _) in enumerate(rows)
                 if label.startswith("not routed")]
        for label in dict.fromkeys(l for l, _ in rows
                                   if not l.startswith("not routed")):
            ratios = []
            for i, (l, v) in enumerate(rows):
                if l != label:
                    continue
                b = max(j for j in plain if j < i)
                a = min(j for j in plain if j > i)
                w = (i - b) / (a - b)
                ratios.append(v / (rows[b][1] * (1 - w) + rows[a][1] * w))
            print(f"  {label}: over the unrouted windows around it "
                  + ", ".join(f"{r:.3f}" for r in ratios)
                  + f"; mean {sum(ratios) / len(ratios):.3f}")


if __name__ == "__main__":
    main()
