# Per-kernel GPU times of the colocation MLP (no scheduling): kprof.py LIB GEMM
import ctypes, sys, torch
from torch.profiler import profile, ProfilerActivity
lib = ctypes.CDLL(sys.argv[1]); lib.train_loss.restype = ctypes.c_float
gemm = ("tf32", "simt").index(sys.argv[2])
assert lib.train_init(1024, 1024, 4, 1, gemm) == 0
lib.train_steps(5)
import time
t = time.time(); lib.train_steps(50); dt = time.time() - t
with profile(activities=[ProfilerActivity.CUDA]) as p:
    lib.train_steps(10)
rows = {}
for e in p.events():
    if e.device_type.name == "CUDA":
        r = rows.setdefault(e.name, [0, 0.0, 0.0])
        r[0] += 1; r[1] += e.device_time; r[2] = max(r[2], e.device_time)
print(f"{sys.argv[2]}: {50/dt:.1f} steps/s alone, loss {lib.train_loss():.6f}")
for n, (c, tot, mx) in sorted(rows.items(), key=lambda kv: -kv[1][1]):
    print(f"  {n[:60]:<60} n={c:4d} avg {tot/c:8.1f} us max {mx:8.1f} us")
