"""Per-kernel device time of the large GPT step: originals against their
PTB variants (routed at the default threshold), from torch.profiler.
    python3 docs/data/h100-2026-11-26m/ktime.py --scale large (the seventeenth session's script, its path to bench/torch moved)"""
import argparse, collections, os, sys, threading
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "bench", "torch"))


def base(name):
    for suf in ("__baton_ptb", "__baton_slice"):
        if name.endswith(suf):
            return name[:-len(suf)], suf[8:]
    return name, "orig"


def profile_steps(trainer, stop, steps):
    import torch
    from torch.profiler import ProfilerActivity, profile
    trainer.run(stop, steps=3)
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        trainer.run(stop, steps=steps)
        torch.cuda.synchronize()
    out = collections.defaultdict(list)
    for e in prof.events():
        if str(getattr(e, "device_type", "")).endswith("CUDA"):
            out[e.name].append(e.time_range.end - e.time_range.start)
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--scale", default="large")
    p.add_argument("--steps", type=int, default=8)
    a = p.parse_args()
    import baton.torch, baton.triton
    baton.torch.enable("best-effort")
    import workloads
    stop = threading.Event()
    trainer, since = workloads.warm_trainer("gpt", a.scale, stop)
    baton.triton.prepare_loaded(wait=True, timeout=240, launched_since=since)
    import baton.triton as bt
    grids = {}
    orig_call = bt.BatonLauncher.__call__
    def call(self, gx, gy, gz, *rest):
        grids[self.name] = (gx, gy, gz)
        return orig_call(self, gx, gy, gz, *rest)
    bt.BatonLauncher.__call__ = call
    trainer.run(stop, steps=10)
    plain = profile_steps(trainer, stop, a.steps)
    baton.torch.set_schedule("always")
    trainer.run(stop, steps=10)
    routed = profile_steps(trainer, stop, a.steps)
    n = a.steps
    tot = lambda d: sum(sum(v) for v in d.values()) / n
    print(f"device time per step: plain {tot(plain):.0f} us, routed {tot(routed):.0f} us")
    by = collections.defaultdict(lambda: {"plain": [], "orig": [], "ptb": [], "slice": []})
    for name, v in plain.items():
        by[base(name)[0]]["plain"] += v
    for name, v in routed.items():
        b, kind = base(name)
        by[b][kind] += v
    rows = []
    for b, d in by.items():
        p_us = sum(d["plain"]) / n
        r_us = (sum(d["orig"]) + sum(d["ptb"]) + sum(d["slice"])) / n
        rows.append((r_us - p_us, b, d, p_us, r_us))
    rows.sort(key=lambda r: -abs(r[0]))
    print(f"{'kernel':<60} {'n/step':>6} {'plain us':>9} {'ptb n':>6} {'ptb mean':>9} {'plain mean':>10} {'delta us/step':>13}")
    for delta, b, d, p_us, r_us in rows[:30]:
        pm = sum(d["plain"]) / max(1, len(d["plain"]))
        bm = sum(d["ptb"]) / max(1, len(d["ptb"]))
        print(f"{b[:60]:<60} {len(d['plain'])/n:6.1f} {p_us:9.1f} {len(d['ptb'])/n:6.1f} {bm:9.2f} {pm:10.2f} {delta:13.1f}")
    print("\nrouted kernels: grid, threads, shared, original regs, variant maxnreg")
    facts = {}
    for l in list(bt._STATE.launchers):
        facts[l.name] = (grids.get(l.name), l.block_x, l.shared)
    for k in bt._STATE.kernels.values():
        if k.name in facts:
            facts[k.name] += (k.maxnreg, k.source)
    for delta, b, d, p_us, r_us in rows[:30]:
        if b in facts:
            print(f"  {b[:60]:<60} {facts[b]}")


if __name__ == "__main__":
    main()
