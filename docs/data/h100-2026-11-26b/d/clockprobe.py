"""What clock a request runs at after a neighbour (issue 5): the SM clock a
kernel sees (clock64 cycles over %globaltimer ns, one block per SM, 20,000
cycles), measured right before and right after a bert request (CUDA graph,
batch 8), and the request's device time, after: 2 ms idle, 20 ms idle,
1 ms of FP32 products + 2 ms / 20 ms idle, 1 ms of BF16 products + 2 ms
idle, 1 ms of memory writes + 2 ms idle; then the clock alone at set delays
after FP32 products.
    python3 clockprobe.py LIB.so"""
import ctypes, os, statistics, sys, time
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "bench", "colocation"))
import torch
import colocate

lib = ctypes.CDLL(sys.argv[1])
lib.launch_clock_probe.argtypes = [ctypes.c_void_p, ctypes.c_longlong,
                                   ctypes.c_int, ctypes.c_void_p]
SMS = torch.cuda.get_device_properties(0).multi_processor_count
CYCLES = 20000


def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(p / 100 * len(v)))]


class Probe:
    def __init__(self):
        self.buf = torch.zeros(2 * SMS, dtype=torch.int64, device="cuda")

    def launch(self, stream):
        rc = lib.launch_clock_probe(self.buf.data_ptr(), CYCLES, SMS,
                                    stream.cuda_stream)
        assert rc == 0, rc

    def mhz(self):
        ns = self.buf.view(-1, 2)[:, 0].double().cpu()
        return statistics.median((CYCLES / ns * 1e3).tolist())


def main():
    args = colocate.parse(["--lib", "x", "--out", "/tmp/x"])
    stream = torch.cuda.Stream(priority=-1)
    big = torch.empty(512 << 20, dtype=torch.uint8, device="cuda")
    a = torch.randn(2048, 2048, device="cuda")
    b = torch.randn(2048, 2048, device="cuda")
    ah, bh = a.bfloat16(), b.bfloat16()

    def busy(op):
        def run():
            t = time.perf_counter()
            while time.perf_counter() - t < 1e-3:
                op()
        return run
    neighbours = {"fp32": busy(lambda: torch.mm(a, b)),
                  "bf16": busy(lambda: torch.mm(ah, bh)),
                  "writes": busy(lambda: big.fill_(1))}
    pre, post = Probe(), Probe()
    forward, how = colocate.forward_on(args, "bert", stream)
    print(f"bert request: {how}; {SMS} SMs; probe {CYCLES} cycles")
    print(f"{'before the request':26} {'dev p50':>7} {'p90':>5} "
          f"{'MHz before':>10} {'MHz after':>9}  (p50; p10-p90)")
    cases = [("2 ms idle", None, 2e-3), ("20 ms idle", None, 20e-3),
             ("fp32 products, 2 ms", "fp32", 2e-3),
             ("fp32 products, 20 ms", "fp32", 20e-3),
             ("bf16 products, 2 ms", "bf16", 2e-3),
             ("memory writes, 2 ms", "writes", 2e-3)]
    e0 = torch.cuda.Event(enable_timing=True)
    e1 = torch.cuda.Event(enable_timing=True)
    for label, n, idle in cases:
        dev, mb, ma = [], [], []
        for i in range(60 if idle > 5e-3 else 200):
            if n:
                neighbours[n]()
            torch.cuda.synchronize()
            time.sleep(idle)
            pre.launch(stream)
            e0.record(stream)
            forward()
            e1.record(stream)
            post.launch(stream)
            stream.synchronize()
            if i >= 10:
                dev.append(1e3 * e0.elapsed_time(e1))
                mb.append(pre.mhz())
                ma.append(post.mhz())
        print(f"{label:26} {pct(dev,50):7.0f} {pct(dev,90):5.0f} "
              f"{pct(mb,50):6.0f} ({pct(mb,10):.0f}-{pct(mb,90):.0f}) "
              f"{pct(ma,50):6.0f} ({pct(ma,10):.0f}-{pct(ma,90):.0f})",
              flush=True)
    print("the same, each request queued behind a GPU spin of 400 us (host "
          "submission hidden), and with the idle spent spinning on the CPU:")
    print(f"{'before the request':26} {'dev p50':>7} {'p90':>5} {'host us':>7} {'gap us':>6}")
    spin = Probe()
    for label, n, idle, cpu_spin, hidden in [
            ("2 ms idle", None, 2e-3, False, True),
            ("20 ms idle", None, 20e-3, False, True),
            ("fp32 products, 2 ms", "fp32", 2e-3, False, True),
            ("fp32 products, 20 ms", "fp32", 20e-3, False, True),
            ("2 ms idle, CPU spins", None, 2e-3, True, False),
            ("20 ms idle, CPU spins", None, 20e-3, True, False),
            ("fp32 products, 20 ms, CPU spins", "fp32", 20e-3, True, False)]:
        dev, host, gap = [], [], []
        e2 = torch.cuda.Event(enable_timing=True)
        for i in range(60 if idle > 5e-3 else 200):
            if n:
                neighbours[n]()
            torch.cuda.synchronize()
            if cpu_spin:
                t = time.perf_counter()
                while time.perf_counter() - t < idle:
                    pass
            else:
                time.sleep(idle)
            if hidden:
                e2.record(stream)
                lib.launch_clock_probe(spin.buf.data_ptr(), 800000, SMS,
                                       stream.cuda_stream)
            e0.record(stream)
            t = time.perf_counter()
            forward()
            h = 1e6 * (time.perf_counter() - t)
            e1.record(stream)
            stream.synchronize()
            if i >= 10:
                dev.append(1e3 * e0.elapsed_time(e1))
                host.append(h)
                gap.append(1e3 * e2.elapsed_time(e0) if hidden else 0)
        print(f"{label:32} {pct(dev,50):7.0f} {pct(dev,90):5.0f} "
              f"{pct(host,50):7.0f} {pct(gap,50):6.0f}", flush=True)
    print("clock alone after 1 ms of fp32 products (then idle), MHz p50 (p10-p90):")
    for delay in (0, 1e-4, 5e-4, 2e-3, 5e-3, 2e-2, 1e-1):
        m = []
        for i in range(40):
            neighbours["fp32"]()
            torch.cuda.synchronize()
            if delay:
                time.sleep(delay)
            pre.launch(stream)
            stream.synchronize()
            m.append(pre.mhz())
        print(f"  {delay*1e3:6.1f} ms: {pct(m,50):6.0f} ({pct(m,10):.0f}-{pct(m,90):.0f})",
              flush=True)
    print("clock alone after idle only:")
    for delay in (2e-3, 2e-2, 1e-1):
        m = []
        for i in range(30):
            torch.cuda.synchronize()
            time.sleep(delay)
            pre.launch(stream)
            stream.synchronize()
            m.append(pre.mhz())
        print(f"  {delay*1e3:6.1f} ms: {pct(m,50):6.0f} ({pct(m,10):.0f}-{pct(m,90):.0f})",
              flush=True)


if __name__ == "__main__":
    main()
