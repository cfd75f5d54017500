"""ncu probe: one large-GPT step not routed, then one routed, with the
profiler on only for those steps (ncu --profile-from-start off)."""
import os, sys, threading
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench", "torch"))
import torch
import baton.torch, baton.triton
baton.torch.enable("best-effort")
import workloads
stop = threading.Event()
trainer, since = workloads.warm_trainer("gpt", "large", stop)
baton.triton.prepare_loaded(wait=True, timeout=240, launched_since=since)
cudart = torch.cuda.cudart()
def step_profiled():
    trainer.run(stop, steps=3); torch.cuda.synchronize()
    cudart.cudaProfilerStart(); trainer.run(stop, steps=1); torch.cuda.synchronize(); cudart.cudaProfilerStop()
step_profiled()
baton.torch.set_schedule("always")
step_profiled()
print("mprobe done", flush=True)
