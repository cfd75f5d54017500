"""Host issue time per step against step time, large GPT, unrouted and routed (nineteenth session)."""
import os, sys, threading, time, statistics
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench", "torch"))
import baton.torch, baton.triton
baton.torch.enable("best-effort")
import workloads
stop = threading.Event()
trainer, since = workloads.warm_trainer("gpt", "large", stop)
baton.triton.prepare_loaded(wait=True, timeout=240, launched_since=since)
def window(label):
    trainer.run(stop, steps=10)
    trainer.stamps.clear(); trainer.issue_s.clear()
    trainer.run(stop, steps=120)
    s = trainer.stamps
    step = (s[-1] - s[0]) / (len(s) - 1)
    iss = statistics.median(trainer.issue_s)
    print(f"{label:<12} step {step*1e3:7.2f} ms  host issue median {iss*1e3:7.2f} ms  ({iss/step:.3f} of the step)", flush=True)
window("not routed")
baton.torch.set_schedule("always"); baton.triton.set_routing(True, min_route_us=100)
window("routed")
baton.torch.set_schedule("never")
window("not routed")
