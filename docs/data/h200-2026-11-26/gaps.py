"""Where the device is idle in the large GPT step, plain against routed:
every gap between GPU activities (kernels, memsets, copies), attributed to
the kind of activity before and after it, from torch.profiler's trace.
    python3 build-scratch/gaps.py --scale large"""
import argparse, collections, json, os, sys, tempfile, threading
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "bench", "torch"))


def kind(name, routed_names):
    if name.endswith("__baton_ptb"):
        return "ptb"
    if name.endswith("__baton_slice"):
        return "slice"
    if name.startswith("baton_"):
        return "finalize"
    if name in routed_names:
        return "routed-orig"
    return "other"


def activities(trainer, stop, steps):
    import torch
    from torch.profiler import ProfilerActivity, profile
    trainer.run(stop, steps=3)
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        trainer.run(stop, steps=steps)
        torch.cuda.synchronize()
    path = tempfile.mktemp(suffix=".json")
    prof.export_chrome_trace(path)
    with open(path) as f:
        ev = json.load(f)["traceEvents"]
    os.unlink(path)
    acts = [e for e in ev if e.get("ph") == "X" and
            e.get("cat") in ("kernel", "gpu_memset", "gpu_memcpy")]
    acts.sort(key=lambda e: e["ts"])
    # The host call that queued each activity (runtime or driver API), by
    # correlation id: when it returned, for the host's share of each gap.
    calls = {}
    for e in ev:
        if e.get("ph") == "X" and e.get("cat") in ("cuda_runtime", "cuda_driver"):
            c = e.get("args", {}).get("correlation")
            if c is not None:
                calls[c] = float(e["ts"]) + float(e["dur"])
    for e in acts:
        e["queued"] = calls.get(e.get("args", {}).get("correlation"))
    return acts


def analyse(label, acts, steps, routed_names):
    streams = collections.Counter(e["args"].get("stream") for e in acts)
    main_stream = streams.most_common(1)[0][0]
    frontier, prev = None, None
    idle = collections.Counter()
    count = collections.Counter()
    host = collections.Counter()  # the part of each gap before its call returned
    unknown = 0
    busy = 0.0
    for e in acts:
        s, d = float(e["ts"]), float(e["dur"])
        k = kind(e["name"], routed_names)
        st = "S" if e["args"].get("stream") == main_stream else "P"
        if frontier is not None and s > frontier:
            key = f"{prev} -> {k}/{st}"
            idle[key] += s - frontier
            count[key] += 1
            q = e.get("queued")
            if q is None:
                unknown += 1
            elif q > frontier:
                host[key] += min(q, s) - frontier
        if frontier is None or s + d > frontier:
            busy += (s + d) - max(s, frontier if frontier is not None else s)
            frontier = s + d
            prev = f"{k}/{st}"
    span = float(acts[-1]["ts"]) + float(acts[-1]["dur"]) - float(acts[0]["ts"])
    tot = sum(idle.values())
    print(f"{label}: span {span / steps:.0f} us/step, busy {busy / steps:.0f}, "
          f"idle {tot / steps:.0f} us/step; {len(acts) / steps:.0f} activities/step, "
          f"streams {dict(streams)}")
    print(f"  host still queueing: {sum(host.values()) / steps:.0f} us/step; "
          f"gaps without a host call: {unknown / steps:.1f}/step")
    print(f"  {'gap (before -> after, S=main stream, P=other)':<50} {'us/step':>8} {'n/step':>7} {'mean us':>8} {'host us':>8}")
    for key, v in sorted(idle.items(), key=lambda kv: -kv[1])[:14]:
        print(f"  {key:<50} {v / steps:8.1f} {count[key] / steps:7.1f} {v / count[key]:8.2f} {host[key] / steps:8.1f}")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--scale", default="large")
    p.add_argument("--steps", type=int, default=8)
    a = p.parse_args()
    import baton.torch, baton.triton
    from baton import _core
    baton.torch.enable("best-effort")
    import workloads
    stop = threading.Event()
    trainer, since = workloads.warm_trainer("gpt", a.scale, stop)
    baton.triton.prepare_loaded(wait=True, timeout=240, launched_since=since)
    trainer.run(stop, steps=10)
    def issue_ms():
        trainer.issue_s.clear()
        trainer.run(stop, steps=10)
        return 1e3 * sum(trainer.issue_s) / len(trainer.issue_s)
    print(f"host issue per step, plain: {issue_ms():.2f} ms")
    plain = activities(trainer, stop, a.steps)
    baton.torch.set_schedule("always")
    trainer.run(stop, steps=10)
    print(f"host issue per step, routed: {issue_ms():.2f} ms")
    s0 = _core.stats()
    routed = activities(trainer, stop, a.steps)
    s1 = _core.stats()
    steps = a.steps + 3
    print("scheduler per step (profiled steps and 3 warm-up):",
          {k: round((s1[k] - s0[k]) / steps, 1) for k in s1})
    names = {e["name"][:-len("__baton_ptb")] for e in routed
             if e["name"].endswith("__baton_ptb")}
    analyse("plain", plain, a.steps, names)
    analyse("routed", routed, a.steps, names)


if __name__ == "__main__":
    main()
