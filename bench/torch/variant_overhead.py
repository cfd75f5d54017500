"""Device time of each Triton kernel of a torch.compile training loop, as
the original kernel and as the variant Baton runs when every launch is
routed and nothing preempts (torch.profiler, CUPTI): per launch site, the
geometric mean, the time-weighted ratio, and the runtime's own kernels and
copies per step (issue 5's "variant overhead when never preempted" over a
training loop's kernels).

A launch site is the k-th launch of one kernel within a step: the same
kernel name may be launched at several sizes in a step, and a routed step
may run some launches as the original (the scheduler's quiet rules), so
launches are paired site by site, never by name alone. For each site where
a variant ran, the table also gives the variant's grid and how long before
it started the kernel ahead of it ended (negative: the two overlapped,
which inflates the later kernel's duration). Last it prints how long the
device sat idle between kernels per step, unrouted and routed: the gaps
routed launches leave, which no kernel's duration shows.

    python3 bench/torch/variant_overhead.py [--train gpt|cnn] [--scale bench|large]
        [--steps 10] [--trace-dir DIR] [--every-variant]

A training job alone runs launches of short blocks as their originals (the
scheduler's idle and quiet rules); --every-variant turns those rules off,
so that the table gives each kernel's variant against its original rather
than what Baton runs.

Run with baton._core on PYTHONPATH (bench/torch/run.sh builds it into
build-torch/python) on a GPU machine.
"""
import argparse
import collections
import json
import math
import os
import statistics
import sys
import tempfile
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

VARIANTS = {"__baton_ptb": "ptb", "__baton_slice": "slice"}
DEVICE_WORK = ("kernel", "gpu_memcpy", "gpu_memset")


def split_variant(name):
    """(original kernel name, form): form is "original" for no variant."""
    for suffix, form in VARIANTS.items():
        if name.endswith(suffix):
            return name[:-len(suffix)], form
    return name, "original"


def device_work(trainer, stop, steps, trace_path):
    """Every kernel, copy and memset of `steps` steps, in start order, from
    the profiler's trace: dicts with name, cat, ts, dur (us), and the
    kernel's grid and stream."""
    import torch
    from torch.profiler import ProfilerActivity, profile
    trainer.run(stop, steps=3)
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        trainer.run(stop, steps=steps)
        torch.cuda.synchronize()
    prof.export_chrome_trace(trace_path)
    with open(trace_path) as f:
        events = json.load(f)["traceEvents"]
    work = [e for e in events
            if e.get("ph") == "X" and e.get("cat") in DEVICE_WORK]
    work.sort(key=lambda e: e["ts"])
    return work


def launches_by_name(work):
    """{original name: [launch, ...]} in start order, whatever form ran
    each launch; a launch records its form, duration, grid and the gap
    since the end of the last kernel that started before it."""
    by_name = collections.defaultdict(list)
    previous_end = None
    for e in work:
        if e["cat"] != "kernel":
            continue
        name, form = split_variant(e["name"])
        gap = None if previous_end is None else e["ts"] - previous_end
        by_name[name].append({"form": form, "dur": e["dur"], "gap": gap,
                              "grid": tuple(e["args"].get("grid", ()))})
        end = e["ts"] + e["dur"]
        previous_end = end if previous_end is None else max(previous_end, end)
    return by_name


def variant_row(name, ran, original_grid, orig, variant):
    """A table row for launches `ran` of a variant against `orig` us."""
    gaps = [l["gap"] for l in ran if l["gap"] is not None]
    return {"name": name, "runs": len(ran), "form": ran[0]["form"],
            "grid": original_grid, "vgrid": ran[0]["grid"],
            "gap": statistics.median(gaps) if gaps else float("nan"),
            "orig": orig, "variant": variant}


def paired_rows(base, routed, steps):
    """A row per launch site where a variant ran: the k-th launch of a
    kernel in each step, paired with the same site of the original run.
    A kernel launched a different number of times when routed (slices: a
    launch is several) gets one row of its time per step instead."""
    rows = []
    for name, launches in routed.items():
        variants = [l for l in launches if l["form"] != "original"]
        if not variants or name not in base:
            continue
        originals = base[name]
        if len(launches) != len(originals) or len(launches) % steps:
            row = variant_row(f"{name}#all", variants, originals[0]["grid"],
                              sum(l["dur"] for l in originals) / steps,
                              sum(l["dur"] for l in launches) / steps)
            rows.append(dict(row, runs=steps))
            continue
        per_step = len(launches) // steps
        for k in range(per_step):
            ran = [l for l in launches[k::per_step] if l["form"] != "original"]
            if ran:
                rows.append(variant_row(
                    f"{name}#{k}", ran, originals[k]["grid"],
                    statistics.median(l["dur"] for l in originals[k::per_step]),
                    statistics.median(l["dur"] for l in ran)))
    return rows


def idle_between_kernels(by_name):
    """Device time (us) in which no kernel ran, from the first kernel's
    start to the last one's end: the gaps a step's launches leave, the sum
    of launches_by_name's gaps where positive."""
    return sum(max(l["gap"], 0.0) for launches in by_name.values()
               for l in launches if l["gap"] is not None)


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--train", default="gpt", choices=("gpt", "cnn"))
    p.add_argument("--scale", default="bench", choices=("bench", "large"))
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--trace-dir", help="keep the two profiler traces here")
    p.add_argument("--every-variant", action="store_true",
                   help="no originals for short blocks while idle, nor for "
                        "one wave while quiet (BATON_IDLE_ORIGINAL_BLOCKS_US"
                        "=0, BATON_ONE_WAVE_ORIGINALS=0)")
    args = p.parse_args()
    if args.every_variant:  # read when the launch router starts
        os.environ["BATON_IDLE_ORIGINAL_BLOCKS_US"] = "0"
        os.environ["BATON_ONE_WAVE_ORIGINALS"] = "0"

    import baton.torch
    import baton.triton
    baton.torch.enable("best-effort")
    import workloads
    stop = threading.Event()
    trainer, since = workloads.warm_trainer(args.train, args.scale, stop)
    baton.triton.prepare_loaded(wait=True, timeout=240, launched_since=since)

    trace_dir = args.trace_dir or tempfile.mkdtemp(prefix="baton-vo-")
    os.makedirs(trace_dir, exist_ok=True)
    base = device_work(trainer, stop, args.steps,
                       os.path.join(trace_dir, "original.json"))
    baton.torch.set_schedule("always")
    baton.triton.set_routing(True, min_route_us=0)
    trainer.run(stop, steps=5)
    routed = device_work(trainer, stop, args.steps,
                         os.path.join(trace_dir, "routed.json"))

    base_launches, routed_launches = (launches_by_name(base),
                                      launches_by_name(routed))
    rows = paired_rows(base_launches, routed_launches, args.steps)
    if not rows:
        sys.exit("no routed kernel ran as a variant")
    rows.sort(key=lambda r: -r["orig"])
    print(f"{args.train} training, {args.scale} size, {args.steps} steps "
          f"each; launch sites where a variant ran (runs: of {args.steps})")
    print(f"{'orig us':>9} {'variant us':>10} {'ratio':>6} form  runs "
          f"{'gap us':>7}  {'grid':>16} {'variant grid':>16}  site")
    for r in rows:
        grid = "x".join(map(str, r["grid"]))
        vgrid = "x".join(map(str, r["vgrid"]))
        print(f"{r['orig']:9.1f} {r['variant']:10.1f} "
              f"{r['variant'] / r['orig']:6.3f} {r['form']:5} {r['runs']:4} "
              f"{r['gap']:7.1f}  {grid:>16} {vgrid:>16}  {r['name'][:60]}")
    geo = math.exp(statistics.fmean(math.log(r["variant"] / r["orig"])
                                    for r in rows))
    before = sum(r["orig"] * r["runs"] for r in rows) / args.steps
    after = sum(r["variant"] * r["runs"] for r in rows) / args.steps
    print(f"geometric mean variant/original over {len(rows)} rows: "
          f"{geo:.3f}; time-weighted {after / before:.3f} "
          f"({before / 1e3:.2f} -> {after / 1e3:.2f} ms per step)")

    # Each step ends with a host synchronisation, in both runs alike.
    print(f"device idle between kernels: "
          f"{idle_between_kernels(base_launches) / args.steps / 1e3:.3f} ms "
          f"per step unrouted, "
          f"{idle_between_kernels(routed_launches) / args.steps / 1e3:.3f} "
          f"routed")
    base_names = {split_variant(e["name"])[0] for e in base}
    runtime = collections.defaultdict(list)
    for e in routed:
        if split_variant(e["name"])[0] not in base_names:
            runtime[e["name"]].append(e["dur"])
    for name, times in sorted(runtime.items(), key=lambda kv: -sum(kv[1])):
        print(f"runtime: {name[:60]}: {len(times) / args.steps:.0f} per "
              f"step, median {statistics.median(times):.2f} us, "
              f"{sum(times) / args.steps / 1e3:.3f} ms per step")


if __name__ == "__main__":
    main()
