"""Where a routed training step's device time goes: torch.profiler over a
few steps, not routed / routed >=30us / every kernel routed; the union of
device activity against the step's span, and the idle gaps by what follows
them.  python3 build-scratch/gaps.py --scale large"""
import argparse, collections, os, sys, threading, time
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "bench", "torch"))


def kind(name):
    if name.endswith("__baton_ptb"):
        return "ptb"
    if name.endswith("__baton_slice"):
        return "slice"
    if name == "baton_finalize":
        return "finalize"
    if "emcpy" in name or "Memcpy" in name:
        return "memcpy"
    if "emset" in name:
        return "memset"
    if name.startswith("triton"):
        return "triton"
    return "lib"


def profile_steps(trainer, stop, steps):
    import torch
    from torch.profiler import ProfilerActivity, profile
    trainer.run(stop, steps=3)
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        trainer.run(stop, steps=steps)
        torch.cuda.synchronize()
    ev = []
    for e in prof.events():
        if str(getattr(e, "device_type", "")).endswith("CUDA"):
            ev.append((e.time_range.start, e.time_range.end, e.name))
    ev.sort()
    return ev


def analyse(label, ev, steps, issue):
    span = ev[-1][1] - ev[0][0]
    busy = 0.0
    gaps = collections.defaultdict(lambda: [0, 0.0])
    big = collections.defaultdict(lambda: [0, 0.0])
    end = ev[0][0]
    prev = "start"
    for s, e, n in ev:
        k = kind(n)
        if s > end:
            g = s - end
            key = f"{prev}->{k}"
            gaps[key][0] += 1
            gaps[key][1] += g
            if g > 200:  # step boundaries (host sync + issue)
                big[key][0] += 1
                big[key][1] += g
        if e > end:
            busy += e - max(s, end)
            end = e
            prev = k
    counts = collections.Counter(kind(n) for _, _, n in ev)
    print(f"== {label}: {steps} steps, span {span/steps/1e3:.2f} ms/step, "
          f"busy {busy/steps/1e3:.2f}, idle {(span-busy)/steps/1e3:.2f} "
          f"(>200us gaps {sum(v[1] for v in big.values())/steps/1e3:.2f}); "
          f"host issue {issue*1e3:.2f} ms/step")
    print("   per step:", ", ".join(f"{k} {v/steps:.0f}" for k, v in sorted(counts.items())))
    for key, (c, t) in sorted(gaps.items(), key=lambda kv: -kv[1][1])[:8]:
        print(f"   gap {key:<22} {c/steps:6.1f}/step {t/steps:8.1f} us/step "
              f"mean {t/c:6.2f} us")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--scale", default="large")
    p.add_argument("--steps", type=int, default=6)
    a = p.parse_args()
    import baton.torch, baton.triton
    baton.torch.enable("best-effort")
    import workloads
    stop = threading.Event()
    trainer, since = workloads.warm_trainer("gpt", a.scale, stop)
    baton.triton.prepare_loaded(wait=True, timeout=240, launched_since=since)

    def phase(label):
        trainer.run(stop, steps=10)
        trainer.issue_s.clear()
        ev = profile_steps(trainer, stop, a.steps)
        iss = sorted(trainer.issue_s)[len(trainer.issue_s) // 2]
        analyse(label, ev, a.steps, iss)

    phase("not routed")
    baton.torch.set_schedule("always")
    baton.triton.set_routing(True, min_route_us=30)
    phase("routed >= 30 us")
    baton.triton.set_routing(True, min_route_us=0)
    phase("every kernel routed")
    baton.torch.set_schedule("never")
    phase("not routed again")


if __name__ == "__main__":
    main()
