"""What a colocated inference request pays without any preemption at all:
the colocation benchmark's requests (CUDA graphs of the BERT-style encoder
and the CNN, batch 8) timed one by one on an otherwise idle GPU, (a) back to
back with 2 ms of idle between them, as `alone` at low load runs them, (b)
after a 512 MB write that evicts the L2 cache, (c) after 1 ms of FP32 matrix
products (a training-like neighbour that has finished). Host-timed from
replay to synchronize, as colocate.py times a request's service.
    python3 build-scratch/l2probe.py"""
import argparse, os, statistics, sys, time
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "bench", "colocation"))
import torch
import colocate


def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(p / 100 * len(v)))]


def main():
    args = colocate.parse(["--lib", "x", "--out", "/tmp/x"])
    stream = torch.cuda.Stream(priority=-1)
    big = torch.empty(512 << 20, dtype=torch.uint8, device="cuda")
    a = torch.randn(2048, 2048, device="cuda")
    b = torch.randn(2048, 2048, device="cuda")
    def flush():
        big.fill_(1)
    def train_like():
        t = time.perf_counter()
        while time.perf_counter() - t < 1e-3:
            torch.mm(a, b)
    print(f"{'model':5} {'before each request':22} {'p10':>6} {'p50':>6} "
          f"{'p90':>6} {'p99':>6}  (us)")
    for kind in ("bert", "cnn"):
        forward, how = colocate.forward_on(args, kind, stream)
        for label, before, idle in (
                ("2 ms idle", None, 2e-3), ("L2 evicted", flush, 2e-3),
                ("1 ms of FP32 products", train_like, 2e-3),
                ("products, 20 ms idle", train_like, 20e-3)):
            lat, dev, clocks = [], [], []
            e0 = torch.cuda.Event(enable_timing=True)
            e1 = torch.cuda.Event(enable_timing=True)
            for i in range(200 if idle > 5e-3 else 400):
                if before:
                    before()
                torch.cuda.synchronize()
                time.sleep(idle)
                if i % 10 == 0:
                    clocks.append(torch.cuda.clock_rate())
                t = time.perf_counter()
                e0.record(stream)
                forward()
                e1.record(stream)
                stream.synchronize()
                if i >= 20:
                    lat.append(1e6 * (time.perf_counter() - t))
                    dev.append(1e3 * e0.elapsed_time(e1))
            print(f"{kind:5} {label:22} {pct(lat,10):6.0f} {pct(lat,50):6.0f} "
                  f"{pct(lat,90):6.0f} {pct(lat,99):6.0f}  device p50 "
                  f"{pct(dev,50):4.0f}  SM clock "
                  f"{statistics.mean(clocks):.0f} MHz", flush=True)


if __name__ == "__main__":
    main()
