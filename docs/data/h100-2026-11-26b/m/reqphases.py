"""Where a bert request's time goes (issue 5): the colocation benchmark's
request (CUDA graph, batch 8) at 10% load, Poisson arrivals, phases timed
on the host (baton_lc_begin, graph launch, synchronize, baton_lc_end) and on
the device (event before the graph to event after it). Modes, one process
each: alone (no Baton), bracket (Baton's LC bracket, no training),
time (bracket, the MLP training beside it, time sharing).
    python3 reqphases.py LIB MODE [SECONDS]"""
import faulthandler, os, random, signal, statistics, sys, time
faulthandler.register(signal.SIGUSR1, all_threads=True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "bench", "colocation"))
import colocate

LIB, MODE = sys.argv[1], sys.argv[2]
SECONDS = float(sys.argv[3]) if len(sys.argv) > 3 else 4.0
def stage(what):
    print(f"[stage {time.monotonic():.3f}] {what}", file=sys.stderr, flush=True)


stage("start")
lib = colocate.load_training(LIB, None if MODE == "alone" else "best-effort")
import torch
args = colocate.parse(["--lib", LIB, "--out", "/tmp/x"])
sys.setswitchinterval(1e-4)
stream = torch.cuda.Stream(priority=-1)
forward, how = colocate.forward_on(args, "bert", stream)
bracket = MODE != "alone"
e0 = torch.cuda.Event(enable_timing=True)
e1 = torch.cuda.Event(enable_timing=True)


def request(rec=None):
    t0 = time.perf_counter()
    work = lib.baton_lc_begin(0) if bracket else 0
    t1 = time.perf_counter()
    e0.record(stream)
    forward()
    e1.record(stream)
    t2 = time.perf_counter()
    stream.synchronize()
    t3 = time.perf_counter()
    if bracket:
        lib.baton_lc_end(work)
    t4 = time.perf_counter()
    if rec is not None:
        rec.append((t1 - t0, t2 - t1, t3 - t2, t4 - t3, t4 - t0,
                    e0.elapsed_time(e1) / 1e3))


stage("model ready")
for _ in range(20):
    request()
alone = []
for _ in range(40):
    time.sleep(0.003)
    t = time.perf_counter()
    request()
    alone.append(time.perf_counter() - t)
service = statistics.fmean(alone)
stage("service measured")
trainer = None
if MODE == "time":
    trainer = colocate.Trainer(lib, args)
    trainer.start()
    trainer.ready.wait()
    assert not trainer.error, trainer.error
stage("training ready")
rng = random.Random(7)
rate = 0.1 / service
recs, lat = [], []
t0 = time.perf_counter()
t = 0.0
while True:
    t += rng.expovariate(rate)
    if t > SECONDS:
        break
    arrival = t0 + t
    ahead = arrival - time.perf_counter()
    if ahead > 3e-4:
        time.sleep(ahead - 2e-4)
    while time.perf_counter() < arrival:
        pass
    request(recs)
    lat.append(time.perf_counter() - arrival)
stage("requests done")
steps = 0
if trainer:
    trainer.stop.set()
    trainer.join()
    steps = len(trainer.stamps)
stage("training stopped")
lib.baton_synchronize()
stage("synchronized")


def q(v, p):
    v = sorted(v)
    return 1e6 * v[min(len(v) - 1, int(p * len(v)))]


names = ("lc_begin", "graph launch", "synchronize", "lc_end", "request",
         "device (events)")
print(f"mode {MODE}: {len(recs)} requests, service {1e6*service:.0f} us, "
      f"training steps {steps}")
print(f"  {'phase':18} {'p50':>6} {'p90':>6} {'p99':>6}  (us)")
for i, n in enumerate(names):
    col = [r[i] for r in recs]
    print(f"  {n:18} {q(col,.5):6.0f} {q(col,.9):6.0f} {q(col,.99):6.0f}")
print(f"  {'latency':18} {q(lat,.5):6.0f} {q(lat,.9):6.0f} {q(lat,.99):6.0f}")
