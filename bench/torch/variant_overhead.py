"""Device time of each Triton kernel of a torch.compile training loop, as
the original kernel and as the variant Baton runs when every launch is
routed and nothing preempts (torch.profiler, CUPTI): per kernel, the
geometric mean, the time-weighted ratio, and the runtime's own kernels and
copies per step (issue 5's "variant overhead when never preempted" over a
training loop's kernels).

    python3 bench/torch/variant_overhead.py [--train gpt|cnn] [--scale bench|large]

Run with baton._core on PYTHONPATH (bench/torch/run.sh builds it into
build-torch/python) on a GPU machine.
"""
import argparse
import collections
import math
import os
import statistics
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

VARIANTS = {"__baton_ptb": "ptb", "__baton_slice": "slice"}


def kernel_times(trainer, stop, steps):
    """Device durations (us) of every kernel of `steps` steps, by name."""
    import torch
    from torch.profiler import ProfilerActivity, profile
    trainer.run(stop, steps=3)
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        trainer.run(stop, steps=steps)
        torch.cuda.synchronize()
    times = collections.defaultdict(list)
    for e in prof.events():
        if str(getattr(e, "device_type", "")).endswith("CUDA"):
            times[e.name].append(e.time_range.elapsed_us())
    return times


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--train", default="gpt", choices=("gpt", "cnn"))
    p.add_argument("--scale", default="bench", choices=("bench", "large"))
    p.add_argument("--steps", type=int, default=10)
    args = p.parse_args()

    import baton.torch
    import baton.triton
    baton.torch.enable("best-effort")
    import workloads
    stop = threading.Event()
    trainer, since = workloads.warm_trainer(args.train, args.scale, stop)
    baton.triton.prepare_loaded(wait=True, timeout=240, launched_since=since)

    base = kernel_times(trainer, stop, args.steps)
    baton.torch.set_schedule("always")
    baton.triton.set_routing(True, min_route_us=0)
    trainer.run(stop, steps=5)
    routed = kernel_times(trainer, stop, args.steps)

    rows = []
    for name, times in routed.items():
        for suffix, form in VARIANTS.items():
            original = name[:-len(suffix)]
            if name.endswith(suffix) and original in base:
                rows.append((statistics.median(base[original]),
                             statistics.median(times), form, original,
                             len(times) / args.steps))
    if not rows:
        sys.exit("no routed kernel ran as a variant")
    rows.sort(reverse=True)
    print(f"{args.train} training, {args.scale} size, {args.steps} steps each")
    print(f"{'orig us':>9} {'variant us':>10} {'ratio':>6} form  per-step  kernel")
    for o, v, form, name, n in rows:
        print(f"{o:9.1f} {v:10.1f} {v / o:6.3f} {form:5} {n:6.1f}  {name[:70]}")
    geo = math.exp(statistics.fmean(math.log(v / o) for o, v, *_ in rows))
    before = sum(o * n for o, v, _, _, n in rows)
    after = sum(v * n for o, v, _, _, n in rows)
    print(f"geometric mean variant/original over {len(rows)} kernels: "
          f"{geo:.3f}; time-weighted {after / before:.3f} "
          f"({before / 1e3:.2f} -> {after / 1e3:.2f} ms per step)")
    for name, times in sorted(routed.items(), key=lambda kv: -sum(kv[1])):
        if name not in base and not any(name.endswith(s) for s in VARIANTS):
            print(f"runtime: {name[:60]}: {len(times) / args.steps:.0f} per "
                  f"step, median {statistics.median(times):.2f} us, "
                  f"{sum(times) / args.steps / 1e3:.3f} ms per step")


if __name__ == "__main__":
    main()
