#!/usr/bin/env python3
"""Colocation benchmark: inference tail latency and training throughput.

GPU command (issue 5: both models, the default systems, loads 10-90%, 3
rounds of 1 s windows; `--dry-run` prints the plan and its estimate, about
9 minutes, and a round that would end past --deadline, 500 s, is not
started):
  cd bench/colocation && python3 colocate.py \\
      --lib ../../build/bench/colocation/libbaton_train_mlp.so --out OUT
  python3 plot.py OUT/results.json OUT
(request_phases.py times one request's phases, host and device, per mode.)

Latency-critical job: a PyTorch model's forward pass, fp16, batch 8 (a
BERT-style encoder, `bert`, and a ResNet-34-style CNN on 224x224 images in
channels_last, `cnn`), answering requests that arrive as a Poisson process
at a load of 10-90% of the GPU time it needs alone; each request's latency
(arrival to completion, queueing included) is recorded. Each model's
forward pass is captured once in a CUDA graph and replayed per request
(`--no-graph`: launched op by op from Python): an eager request is about
1 ms of Python launching kernels for a GPU that is mostly idle, whose
jitter swamped the differences measured. Best-effort job: an MLP trained
with SGD in CUDA kernels of its own, built with the Baton plugin
(libbaton_train_mlp.so, train_mlp.cu), loaded with ctypes.

Systems, each in fresh processes so that no setting leaks into the next:
  alone        each job by itself (the references)
  baton-train-alone  training by itself, scheduled by Baton
  shared       both in one process, plain streams, no control
  priority     both in one process, inference on a high-priority stream
  timeslice    two processes, the driver's time slicing
  mps          two processes under the MPS daemon (if it starts)
  baton-time   Baton: training scheduled best-effort, inference brackets each
               request with baton_lc_begin/end(0): training pauses
  baton-time-late  baton-time with each bracket begun once the request is
               queued: training runs on while the host submits the graph
               and pauses as the GPU starts it (requests then wait for
               training's blocks to drain)
  baton-space  the same with baton_lc_begin(SMS): training's workers leave
               SMS SMs to inference during each request and keep the rest
  baton-reserve  baton-space, and training keeps those SMs vacated between
               requests too while inference is about
               (BATON_RESERVE_WHILE_LC=1): no request waits for a drain
  baton-procs  Baton across two processes, as a server and a training job
               would share a GPU: training scheduled best-effort, inference
               announcing each request in the GPU's registry (baton/share.h:
               announce, then end on its stream); the driver time-slices
               the two contexts
  baton-procs-mps  baton-procs under the MPS daemon
               (baton-time-late and the baton-procs systems run only when
               --systems names them, or is all; the default run keeps to
               its deadline without them)
A process with the inference job serves every model in turn, each at every
load, next to one training run.

Rounds: every system runs once per round, `alone` first (each round has its
own reference), the others in an order rotated from round to round, so
that drift over the run hits every system alike. Arrival rates are fixed
by the first round's `alone` service times; each round draws its own
arrival times, the same for every system of the round. The table reports
the median over rounds of each round's ratio to its own reference (and
the p99 of all rounds' requests pooled). A window whose queue runs past
`--overrun` times its length stops serving; its unserved requests count
with the wait they had at that point (a lower bound, marked `>`).

  colocate.py --lib libbaton_train_mlp.so --out DIR [--models bert,cnn]
      [--systems a,b] [--loads ...] [--rounds N] [--window S] [--dry-run]
writes DIR/results.json (configuration, every round's raw numbers, the
medians), DIR/latencies.json (every request's latency, us) and
DIR/children.log (the children's stderr), and prints the table last.
"""
import argparse
import ctypes
import json
import math
import os
import random
import statistics
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))

MODELS = ("bert", "cnn")
SYSTEMS = ("alone", "baton-train-alone", "baton-time", "baton-time-late",
           "baton-space", "baton-reserve", "baton-procs", "baton-procs-mps",
           "shared", "priority", "timeslice", "mps")
# Systems whose training is scheduled by Baton.
SCHEDULED = ("baton-train-alone", "baton-time", "baton-time-late",
             "baton-space", "baton-reserve", "baton-procs", "baton-procs-mps")
# The colocated Baton systems in one process: SMs a request asks for.
LC_SMS = {"baton-time": lambda args: 0,
          "baton-time-late": lambda args: 0,
          "baton-space": lambda args: args.lc_sms,
          "baton-reserve": lambda args: args.lc_sms}
# The colocated Baton systems of two processes, meeting in the registry.
REGISTRY = ("baton-procs", "baton-procs-mps")
TWO_PROCESSES = ("timeslice", "mps") + REGISTRY
UNDER_MPS = ("mps", "baton-procs-mps")
# Brackets begun once the request is queued rather than before.
LATE_BEGIN = ("baton-time-late",)
DEFAULT_SYSTEMS = tuple(s for s in SYSTEMS
                        if s not in REGISTRY + LATE_BEGIN)

# Seconds the plan counts for what is not a window (from the first H200
# runs: about 4 s between the windows of two plain PyTorch processes, 8.5 s
# when the second was scheduled by Baton), rounded up.
COST = {"torch": 4.5,       # a process with PyTorch: start, warm-up, exit
        "model": 1.5,       # each model: build, warm-up, graph, service time
        "baton": 4.0,       # a process scheduled by Baton, on top
        "light": 1.5,       # a training process without PyTorch
        "mps": 1.5}         # starting and stopping the daemon


def percentile(values, p):
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))]


# ---------------------------------------------------------------- workers

def load_training(lib_path, schedule):
    """Loads the training library; BATON_SCHEDULE must be set before, since
    the shim reads it (and widens the hardware queues) when it loads."""
    if schedule:
        os.environ["BATON_SCHEDULE"] = schedule
    else:
        os.environ.pop("BATON_SCHEDULE", None)
    lib = ctypes.CDLL(lib_path)
    lib.train_loss.restype = ctypes.c_float
    lib.baton_lc_begin.restype = ctypes.c_ulonglong
    lib.baton_lc_begin.argtypes = [ctypes.c_uint]
    lib.baton_lc_end.argtypes = [ctypes.c_ulonglong]
    return lib


class Trainer(threading.Thread):
    """Runs SGD steps until stopped, recording when each one finished."""

    def __init__(self, lib, args):
        super().__init__(daemon=True)
        self.lib, self.args = lib, args
        self.stamps = []
        self.stop = threading.Event()
        self.ready = threading.Event()
        self.error = None

    def run(self):
        a = self.args
        if self.lib.train_init(a.batch, a.hidden, a.layers, a.splits,
                               1) != 0:
            self.error = "train_init failed"
            self.ready.set()
            return
        self.lib.train_steps(3)  # warm-up
        self.ready.set()
        while not self.stop.is_set():
            if self.lib.train_steps(1) != 0:  # ctypes releases the GIL
                self.error = "train_steps failed"
                return
            self.stamps.append(time.time())


def resnet(depth, classes=1000):
    """A ResNet-18 or -34 (basic blocks, torchvision's layout) in plain
    torch.nn, so that nothing has to be downloaded."""
    from torch import nn
    stages = {18: (2, 2, 2, 2), 34: (3, 4, 6, 3)}[depth]

    class BasicBlock(nn.Module):
        def __init__(self, c_in, c_out, stride):
            super().__init__()
            self.conv1 = nn.Conv2d(c_in, c_out, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(c_out)
            self.conv2 = nn.Conv2d(c_out, c_out, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(c_out)
            self.relu = nn.ReLU(inplace=True)
            self.down = None
            if stride != 1 or c_in != c_out:
                self.down = nn.Sequential(
                    nn.Conv2d(c_in, c_out, 1, stride, bias=False),
                    nn.BatchNorm2d(c_out))

        def forward(self, x):
            y = self.relu(self.bn1(self.conv1(x)))
            y = self.bn2(self.conv2(y))
            return self.relu(y + (x if self.down is None else self.down(x)))

    layers = [nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64),
              nn.ReLU(inplace=True), nn.MaxPool2d(3, 2, 1)]
    c = 64
    for i, blocks in enumerate(stages):
        out = 64 << i
        for j in range(blocks):
            layers.append(BasicBlock(c, out, 2 if i > 0 and j == 0 else 1))
            c = out
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(c, classes)]
    return nn.Sequential(*layers)


def build_model(args, kind="bert"):
    """The inference model (fp16, eval mode, on the GPU) and one input
    batch. bench/torch/colocate_torch.py builds its encoder here too."""
    import torch
    torch.manual_seed(0)
    batch = args.infer_batch
    if kind == "cnn":
        # cuDNN's heuristics, not its benchmark mode: the same convolution
        # algorithms in every process, whatever runs beside it.
        torch.backends.cudnn.benchmark = False
        size = getattr(args, "image_size", 224)
        model = resnet(getattr(args, "cnn_depth", 34)).half().cuda().eval()
        model = model.to(memory_format=torch.channels_last)
        x = torch.randn(batch, 3, size, size, device="cuda", dtype=torch.half)
        return model, x.contiguous(memory_format=torch.channels_last)
    layer = torch.nn.TransformerEncoderLayer(
        d_model=768, nhead=12, dim_feedforward=3072, dropout=0.0,
        batch_first=True)
    model = torch.nn.TransformerEncoder(layer, num_layers=args.model_layers,
                                        enable_nested_tensor=False)
    model = model.half().cuda().eval()
    x = torch.randn(batch, 128, 768, device="cuda", dtype=torch.half)
    return model, x


def capture(model, x):
    """The forward pass as a CUDA graph, after warm-up on a side stream (as
    PyTorch's documentation does it); returns the graph and its output,
    which must stay alive. Errors are the capturing thread's own
    (thread_local): a runtime thread of Baton's is not disturbed."""
    import torch
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side), torch.inference_mode():
        for _ in range(3):
            model(x)
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.inference_mode(), torch.cuda.graph(
            graph, capture_error_mode="thread_local"):
        out = model(x)
    torch.cuda.synchronize()
    return graph, out


def forward_on(args, kind, stream):
    """Returns (forward, how): forward() enqueues one request on `stream`,
    a replay of the captured graph (its kernels take the priority of the
    stream it is launched into) or, with --no-graph or if the capture
    fails, the model called op by op."""
    import torch
    model, x = build_model(args, kind)

    def eager():
        with torch.cuda.stream(stream), torch.inference_mode():
            model(x)

    if not args.graph:
        return eager, "eager"
    try:
        graph, out = capture(model, x)
    except Exception as e:  # measured eagerly, and the results say so
        print(f"{kind}: CUDA graph capture failed, requests run eagerly: "
              f"{type(e).__name__}: {e}", file=sys.stderr, flush=True)
        torch.cuda.synchronize()
        return eager, f"eager (capture failed: {type(e).__name__}: {e})"

    def replay():
        with torch.cuda.stream(stream):
            graph.replay()

    replay.keep = (model, x, out)
    return replay, "graph"


class SchedulerBracket:
    """A request as latency-critical work of this process's scheduler:
    baton_lc_begin(sms) before it is queued (or, `late`, once it is),
    baton_lc_end once it has completed."""

    def __init__(self, lib, sms, late=False):
        self.lib, self.sms, self.late = lib, sms, late

    def begin(self):
        return 0 if self.late else self.lib.baton_lc_begin(self.sms)

    def queued(self, work, stream):
        return self.lib.baton_lc_begin(self.sms) if self.late else work

    def completed(self, work):
        self.lib.baton_lc_end(work)


class RegistryBracket:
    """A request as latency-critical work announced in the GPU's registry
    (baton/share.h, exported by the training library), for best-effort
    processes beside this one: announced before it is queued, ended by its
    stream when the stream gets there (no host wake-up in between)."""

    def __init__(self, lib):
        c = ctypes
        self.lib = lib
        lib.baton_share_join.argtypes = [c.c_char_p, c.c_int, c.c_int,
                                         c.c_char_p, c.POINTER(c.c_void_p)]
        lib.baton_share_announce.argtypes = [c.c_void_p,
                                             c.POINTER(c.c_uint64)]
        lib.baton_share_end_on_stream.argtypes = [c.c_void_p, c.c_uint64,
                                                  c.c_void_p]
        lib.baton_share_last_error.restype = c.c_char_p
        self.handle = c.c_void_p()
        latency_critical = 2  # BATON_SHARE_LATENCY_CRITICAL
        self.check(lib.baton_share_join(None, 0, latency_critical,
                                        b"colocate-inference",
                                        c.byref(self.handle)), "join")

    def check(self, status, what):
        if status != 0:
            raise RuntimeError(f"baton_share_{what}: status {status}: "
                               f"{self.lib.baton_share_last_error().decode()}")

    def begin(self):
        ticket = ctypes.c_uint64()
        self.check(self.lib.baton_share_announce(self.handle,
                                                 ctypes.byref(ticket)),
                   "announce")
        return ticket.value

    def queued(self, ticket, stream):
        self.check(self.lib.baton_share_end_on_stream(
            self.handle, ticket, stream.cuda_stream), "end_on_stream")
        return ticket

    def completed(self, ticket):
        pass


def bracket_for(args, lib):
    """How a request of `args.system` tells training to yield, or None."""
    if args.system in LC_SMS:
        return SchedulerBracket(lib, LC_SMS[args.system](args),
                                late=args.system in LATE_BEGIN)
    if args.system in REGISTRY:
        return RegistryBracket(lib)
    return None


def prepare(args, lib, bracket, priority):
    """Builds and warms up each model (before any training starts, so that
    memory, library handles and kernels are set up on a quiet GPU); returns
    {model: (request, service time measured alone, how it runs)}. A request
    is the forward pass, waited for, inside `bracket` unless it is None."""
    import torch
    stream = torch.cuda.Stream(priority=priority)
    prepared = {}
    for kind in args.models:
        forward, how = forward_on(args, kind, stream)

        def request(forward=forward):
            work = bracket.begin() if bracket else 0
            forward()
            if bracket:
                work = bracket.queued(work, stream)
            stream.synchronize()
            if bracket:
                bracket.completed(work)

        prepared[kind] = (request, service_time(request, warmups=10), how)
    return prepared


def service_time(request, warmups):
    """Runs `warmups` requests, then returns the mean time of one. Requests
    arrive with gaps in which the GPU idles, and one after a gap takes
    longer than one right after another: measure it that way, or the
    nominal loads would overload the GPU."""
    for _ in range(warmups):
        request()
    alone = []
    for _ in range(40):
        time.sleep(0.003)
        t = time.perf_counter()
        request()
        alone.append(time.perf_counter() - t)
    return statistics.fmean(alone)


def serve(args, request, service, seed=0, keep_latencies=False):
    """Answers Poisson requests at each load; returns per-load windows.
    `seed` picks the arrival times (0: those of the first runs). With
    args.overrun set, a window whose queue runs past overrun x window
    stops serving; the requests left count with the wait they had then."""
    windows = []
    overrun = getattr(args, "overrun", 0) or 0
    for load in args.loads:
        rng = random.Random(seed * 1000003 + int(load * 1000))
        rate = load / service
        start = time.time()
        t0 = time.perf_counter()
        cut = t0 + overrun * args.window if overrun else math.inf
        arrivals, t = [], 0.0
        while True:
            t += rng.expovariate(rate)
            if t > args.window:
                break
            arrivals.append(t0 + t)
        latencies, free_at, skipped = [], t0, 0
        for i, arrival in enumerate(arrivals):
            begin = max(arrival, free_at)
            if begin > cut:
                now = time.perf_counter()
                skipped = len(arrivals) - i
                latencies += [now - a for a in arrivals[i:]]
                break
            # Sleep (releasing the GIL for the training thread) until close
            # to the arrival, then spin.
            ahead = begin - time.perf_counter()
            if ahead > 3e-4:
                time.sleep(ahead - 2e-4)
            while time.perf_counter() < begin:
                pass
            request()
            free_at = time.perf_counter()
            latencies.append(free_at - arrival)
        end = time.time()
        w = {"load": load, "start": start, "end": end,
             "requests": len(latencies),
             "p50_ms": 1e3 * percentile(latencies, 0.50),
             "p99_ms": 1e3 * percentile(latencies, 0.99),
             "mean_ms": 1e3 * statistics.fmean(latencies)
             if latencies else float("nan")}
        if overrun:
            w["skipped"] = skipped
        if keep_latencies:
            w["latencies_us"] = [round(1e6 * x) for x in latencies]
        windows.append(w)
    return windows


def steps_per_second(stamps, start, end):
    inside = [s for s in stamps if start <= s <= end]
    return len(inside) / (end - start) if end > start else 0.0


def rate_of(stamps):
    if len(stamps) < 2:
        return 0.0
    return (len(stamps) - 1) / (stamps[-1] - stamps[0])


def role_main(args):
    """One process of a system: inference, training, or both."""
    sys.setswitchinterval(1e-4)  # the training thread waits on the GIL less
    if args.system == "baton-reserve":
        os.environ["BATON_RESERVE_WHILE_LC"] = "1"
    # An inference process of a pair leaves launches alone (its bracket, if
    # any, goes through the registry).
    scheduled = args.system in SCHEDULED and args.role != "inference"
    lib = load_training(args.lib, "best-effort" if scheduled else None)
    prepared = {}
    result = {"system": args.system, "role": args.role}
    if args.role in ("inference", "both"):
        import torch
        priority = 0 if args.system == "shared" else -1
        prepared = prepare(args, lib, bracket_for(args, lib), priority)
        result["torch"] = torch.__version__
        result["gpu"] = torch.cuda.get_device_name()
        if args.system in TWO_PROCESSES:
            print("ready", flush=True)  # the parent starts training now
            sys.stdin.readline()        # and says when it is warm
    trainer = None
    if args.role in ("train", "both"):
        trainer = Trainer(lib, args)
        trainer.start()
        trainer.ready.wait()
        if trainer.error:
            sys.exit("training: " + trainer.error)
    if args.role == "train":
        if args.train_for:
            time.sleep(args.train_for)
        else:
            print("ready", flush=True)
            sys.stdin.readline()  # the parent says when inference is done
    if prepared:
        result["models"] = {}
        for kind, (request, measured, how) in prepared.items():
            # Every system sees the arrivals that the reference run's
            # service time implies, so that loads mean the same everywhere.
            service = args.service.get(kind, 0) / 1e3 or measured
            result["models"][kind] = {
                "service_ms": measured * 1e3, "request": how,
                "windows": serve(args, request, service, seed=args.round,
                                 keep_latencies=True)}
    if trainer:
        trainer.stop.set()
        trainer.join()
        if trainer.error:
            sys.exit("training: " + trainer.error)
        result["loss"] = lib.train_loss()
        result["stamps"] = trainer.stamps
    lib.baton_synchronize()
    print(json.dumps(result), flush=True)


# ------------------------------------------------------------------- plan

def stretch(system, load, overrun):
    """How much longer than its window a window is expected to take: queues
    grow where the system cannot keep up (the first H200 run, eager
    requests; capped by --overrun)."""
    slope, knee = {"shared": (2.0, 0.3), "timeslice": (2.0, 0.5),
                   "priority": (1.5, 0.6), "mps": (1.5, 0.6),
                   "baton-time": (1.0, 0.8), "baton-time-late": (1.0, 0.8),
                   "baton-space": (2.0, 0.6),
                   "baton-reserve": (2.0, 0.6)
                   }.get(system, (0.0, 1.0))
    s = 1.0 + slope * max(0.0, load - knee)
    return min(s, overrun) if overrun else s


def estimate(args, system):
    """Seconds one run of `system` is expected to take."""
    windows = len(args.models) * sum(
        args.window * stretch(system, load, args.overrun)
        for load in args.loads)
    inference = COST["torch"] + COST["model"] * len(args.models) + (
        COST["baton"] if system in SCHEDULED else 0)
    if system == "alone":
        return inference + windows + COST["light"] + args.train_for
    if system == "baton-train-alone":
        return COST["light"] + COST["baton"] + args.train_for
    if system in TWO_PROCESSES:
        return inference + windows + COST["light"] + (
            COST["mps"] if system in UNDER_MPS else 0)
    return inference + windows


def round_order(systems, r):
    """`alone` first, the others rotated by one place each round."""
    rest = [s for s in systems if s != "alone"]
    k = (r - 1) % len(rest) if rest else 0
    return (["alone"] if "alone" in systems else []) + rest[k:] + rest[:k]


def plan(args):
    """[(round, [(system, estimated seconds), ...]), ...]"""
    return [(r, [(s, estimate(args, s)) for s in round_order(args.systems, r)])
            for r in range(1, args.rounds + 1)]


def print_plan(args, rounds):
    total = sum(sec for _, runs in rounds for _, sec in runs)
    print(f"plan: models {','.join(args.models)}, loads "
          f"{','.join(f'{l:g}' for l in args.loads)}, {args.window:g} s "
          f"windows, {args.rounds} rounds, requests "
          f"{'graph' if args.graph else 'eager'}", flush=True)
    for r, runs in rounds:
        print(f"  round {r}: " + ", ".join(f"{s} {sec:.0f} s"
                                         for s, sec in runs) +
              f" = {sum(sec for _, sec in runs):.0f} s", flush=True)
    print(f"  estimated total {total:.0f} s ({total / 60:.1f} min); a round "
          f"that would end past --deadline {args.deadline:.0f} s (by this "
          f"estimate or the last round's time) is not started", flush=True)
    return total


# ------------------------------------------------------------ orchestration

def child_command(args, system, role, r):
    cmd = [sys.executable, os.path.abspath(__file__), "--lib", args.lib,
           "--out", args.out, "--system", system, "--role", role,
           "--round", str(r), "--models", ",".join(args.models),
           "--loads", ",".join(str(l) for l in args.loads),
           "--window", str(args.window), "--overrun", str(args.overrun),
           "--lc-sms", str(args.lc_sms), "--batch", str(args.batch),
           "--hidden", str(args.hidden), "--layers", str(args.layers),
           "--splits", str(args.splits),
           "--model-layers", str(args.model_layers),
           "--infer-batch", str(args.infer_batch),
           "--cnn-depth", str(args.cnn_depth),
           "--image-size", str(args.image_size),
           "--service-ms", ",".join(f"{k}={v}"
                                    for k, v in args.service.items()),
           "--graph" if args.graph else "--no-graph",
           # A training process of a pair trains until the parent says.
           "--train-for", str(args.train_for if system in (
               "alone", "baton-train-alone") else 0)]
    return cmd


def child(args, system, role, r, env=None, stdin=None):
    os.makedirs(os.path.join(args.out, "logs"), exist_ok=True)
    log = os.path.join(args.out, "logs", f"r{r}-{system}-{role}.log")
    with open(log, "w") as err:
        proc = subprocess.Popen(child_command(args, system, role, r),
                                stdout=subprocess.PIPE, stderr=err,
                                env=dict(os.environ, **(env or {})),
                                stdin=stdin, text=True)
    proc.log, proc.name = log, f"round {r} {system}/{role}"
    return proc


def collect_log(args, proc):
    """Appends a finished child's stderr to children.log (few files come
    back from the GPU machine); returns its last lines."""
    try:
        text = open(proc.log).read()
        os.remove(proc.log)
    except OSError:
        return ""
    with open(os.path.join(args.out, "children.log"), "a") as f:
        f.write(f"==== {proc.name}\n{text}")
    return "\n".join(text.splitlines()[-12:])


def last_json(args, proc, timeout):
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        tail = collect_log(args, proc)
        raise RuntimeError(f"{proc.name} did not finish in {timeout:.0f} s"
                           f"\n{tail}")
    tail = collect_log(args, proc)
    lines = [l for l in out.splitlines() if l.startswith("{")]
    if proc.returncode != 0 or not lines:
        raise RuntimeError(f"{proc.name} failed (rc={proc.returncode}); "
                           f"its log ends:\n{tail}")
    return json.loads(lines[-1])


def wait_ready(args, proc, timeout):
    box = {}
    t = threading.Thread(
        target=lambda: box.update(line=proc.stdout.readline()), daemon=True)
    t.start()
    t.join(timeout)
    line = box.get("line")
    if (line or "").strip() != "ready":
        proc.kill()
        proc.wait()
        tail = collect_log(args, proc)
        why = (f"was not ready in {timeout:.0f} s" if line is None else
               f"said {line.strip()[:80]!r}, not 'ready'")
        raise RuntimeError(f"{proc.name} {why}\n{tail}")


def go(proc):
    proc.stdin.write("\n")
    proc.stdin.flush()


def run_two_processes(args, system, r, timeout, env=None):
    """Inference is built and warmed up before training starts (as in the
    one-process systems), then serves while training runs beside it."""
    infer = child(args, system, "inference", r, env, stdin=subprocess.PIPE)
    train = None
    try:
        wait_ready(args, infer, timeout)
        train = child(args, system, "train", r, env, stdin=subprocess.PIPE)
        wait_ready(args, train, 60)
        go(infer)
        inferred = last_json(args, infer, timeout)
        go(train)
        trained = last_json(args, train, 60)
    finally:
        for proc in (infer, train):
            if proc and proc.poll() is None:
                proc.kill()
                proc.wait()
                collect_log(args, proc)
    return inferred, trained


def start_mps():
    env = {"CUDA_MPS_PIPE_DIRECTORY": "/tmp/baton-mps/pipe",
           "CUDA_MPS_LOG_DIRECTORY": "/tmp/baton-mps/log"}
    for d in env.values():
        os.makedirs(d, exist_ok=True)
    r = subprocess.run(["nvidia-cuda-mps-control", "-d"],
                       env=dict(os.environ, **env), capture_output=True,
                       text=True)
    if r.returncode != 0:
        return None, (r.stderr or r.stdout).strip() or f"rc={r.returncode}"
    time.sleep(1)
    return env, None


def stop_mps(env):
    subprocess.run(["nvidia-cuda-mps-control"], input="quit\n",
                   env=dict(os.environ, **env), capture_output=True,
                   text=True)


def add_training(run, stamps):
    for m in run["models"].values():
        for w in m["windows"]:
            w["train_steps_per_s"] = steps_per_second(stamps, w["start"],
                                                      w["end"])


def run_system(args, system, r, timeout):
    """One run of `system` in round `r`: its raw record."""
    if system == "alone":
        run = last_json(args, child(args, system, "inference", r), timeout)
        trained = last_json(args, child(args, system, "train", r), timeout)
        run["train_alone_steps_per_s"] = rate_of(trained["stamps"])
        run["loss"] = trained["loss"]
    elif system == "baton-train-alone":
        trained = last_json(args, child(args, system, "train", r), timeout)
        run = {"system": system,
               "train_alone_steps_per_s": rate_of(trained["stamps"]),
               "loss": trained["loss"]}
    elif system in TWO_PROCESSES:
        env = {}
        if system in UNDER_MPS:
            env, why = start_mps()
            if env is None:
                raise RuntimeError(f"MPS did not start: {why}")
        if system in REGISTRY:
            # Each request is one announcement that covers its whole graph,
            # so training need not stay paused past its end to bridge gaps
            # between a request's kernels (the launch router's default).
            env["BATON_SHARE_LINGER_US"] = str(args.share_linger_us)
        try:
            run, trained = run_two_processes(args, system, r, timeout, env)
        finally:
            if system in UNDER_MPS:
                stop_mps(env)
        add_training(run, trained["stamps"])
        run["loss"] = trained["loss"]
    else:
        run = last_json(args, child(args, system, "both", r), timeout)
        add_training(run, run.pop("stamps"))
    run.pop("stamps", None)
    return run


def split_latencies(run):
    """Takes the per-request latencies out of a run's windows."""
    out = {}
    for kind, m in run.get("models", {}).items():
        out[kind] = {str(w["load"]): w.pop("latencies_us", [])
                     for w in m["windows"]}
    return out


def brief(run):
    """One line on a finished run: p99 and training at the middle load."""
    parts = []
    if "train_alone_steps_per_s" in run:
        parts.append(f"training {run['train_alone_steps_per_s']:.1f} steps/s")
    for kind, m in run.get("models", {}).items():
        w = m["windows"][len(m["windows"]) // 2]
        parts.append(f"{kind} {m['request'].split()[0]} "
                     f"{m['service_ms']:.2f} ms alone, "
                     f"load {w['load']:g}: p99 {w['p99_ms']:.2f} ms" +
                     (f", {w['train_steps_per_s']:.0f} steps/s"
                      if "train_steps_per_s" in w else ""))
    return "; ".join(parts)


def orchestrate(args):
    os.makedirs(args.out, exist_ok=True)
    rounds = plan(args)
    print_plan(args, rounds)
    results = {"format": 2, "config": config_of(args), "rounds": [],
               "notes": []}
    latencies = {}
    path = os.path.join(args.out, "results.json")

    def save():
        results["summary"] = summarize(results, latencies)
        with open(path, "w") as f:
            json.dump(results, f, indent=1)
        with open(os.path.join(args.out, "latencies.json"), "w") as f:
            json.dump(latencies, f, separators=(",", ":"))

    t_start = time.time()

    def clock():
        s = time.time() - t_start
        return f"[{int(s) // 60:02d}:{int(s) % 60:02d}]"

    last_round = 0.0  # how long the previous round took
    for r, runs in rounds:
        elapsed = time.time() - t_start
        need = max(last_round, sum(sec for _, sec in runs))
        if r > 1 and elapsed + need > args.deadline:
            note = (f"rounds {r}-{args.rounds} not run: {elapsed:.0f} s "
                    f"gone, a round takes about {need:.0f} s, deadline "
                    f"{args.deadline:.0f} s")
            results["notes"].append(note)
            print(f"{clock()} {note}", flush=True)
            break
        t_round = time.time()
        record = {"round": r, "order": [s for s, _ in runs], "runs": {},
                  "failed": {}}
        results["rounds"].append(record)
        for system, sec in runs:
            if time.time() - t_start + sec > args.deadline + 30:
                record["failed"][system] = "not run: past the deadline"
                continue
            t0 = time.time()
            try:
                run = run_system(args, system, r, timeout=2 * sec + 60)
            except Exception as e:  # keep the other systems' results
                record["failed"][system] = str(e)
                print(f"{clock()} round {r} {system} failed: {e}", flush=True)
                if system == "alone":
                    record["failed"]["*"] = "no reference: round abandoned"
                    break
                continue
            run["elapsed_s"] = time.time() - t0
            latencies[f"r{r}-{system}"] = split_latencies(run)
            record["runs"][system] = run
            if system == "alone" and not args.service:
                # The first reference fixes every later arrival rate.
                args.service = {k: m["service_ms"]
                                for k, m in run.get("models", {}).items()}
                results["config"]["service_ms"] = args.service
            print(f"{clock()} round {r} {system} ({run['elapsed_s']:.0f} s, "
                  f"est. {sec:.0f}): {brief(run)}", flush=True)
            save()
        last_round = time.time() - t_round
    save()
    try:
        os.rmdir(os.path.join(args.out, "logs"))
    except OSError:
        pass
    print_summary(results, latencies)


def config_of(args):
    keys = ("models", "systems", "loads", "window", "rounds", "overrun",
            "graph", "train_for", "lc_sms", "batch", "hidden", "layers",
            "splits", "model_layers", "infer_batch", "cnn_depth", "image_size",
            "deadline")
    c = {k: getattr(args, k) for k in keys}
    c["service_ms"] = dict(args.service)
    c["estimate_s"] = sum(sec for _, runs in plan(args) for _, sec in runs)
    c["env"] = {k: v for k, v in os.environ.items()
                if k.startswith(("BATON_", "CUDA_"))}
    return c


# ---------------------------------------------------------------- summary

def finite(xs):
    return [x for x in xs if x is not None and not math.isnan(x)]


def median(xs):
    xs = finite(xs)
    return statistics.median(xs) if xs else math.nan


PER_ROUND = ("round", "p50_ms", "p99_ms", "p50_ratio", "p99_ratio", "kept",
             "skipped")


def summarize(results, latencies=None):
    """Medians over rounds. Per round, each system's window is divided by
    that round's `alone` (p99) and that round's training alone (kept)."""
    cells, train = {}, {"exclusive": [], "baton": []}
    for record in results["rounds"]:
        alone = record["runs"].get("alone") or {}
        ref_train = alone.get("train_alone_steps_per_s") or math.nan
        train["exclusive"].append(ref_train)
        bta = record["runs"].get("baton-train-alone")
        if bta:
            train["baton"].append(bta["train_alone_steps_per_s"] / ref_train)
        for system, run in record["runs"].items():
            for kind, m in run.get("models", {}).items():
                refs = {w["load"]: w for w in alone.get("models", {})
                        .get(kind, {}).get("windows", [])}
                for w in m["windows"]:
                    ref = refs.get(w["load"], {})
                    c = cells.setdefault(kind, {}).setdefault(
                        system, {}).setdefault(w["load"], {
                            k: [] for k in PER_ROUND})
                    c["request"] = m["request"]
                    c["round"].append(record["round"])
                    c["p50_ms"].append(w["p50_ms"])
                    c["p99_ms"].append(w["p99_ms"])
                    c["p50_ratio"].append(
                        w["p50_ms"] / ref.get("p50_ms", math.nan))
                    c["p99_ratio"].append(
                        w["p99_ms"] / ref.get("p99_ms", math.nan))
                    c["kept"].append(
                        w.get("train_steps_per_s", math.nan) / ref_train)
                    c["skipped"].append(w.get("skipped", 0))
    summary = {"training": {
        "exclusive_steps_per_s": median(train["exclusive"]),
        "baton_alone_ratio": median(train["baton"]),
        "per_round": train}, "models": {}}
    for kind, systems in cells.items():
        summary["models"][kind] = {
            system: [summary_row(load, c) for load, c in sorted(loads.items())]
            for system, loads in systems.items()}
    if latencies:
        add_pooled(summary, latencies)
    return summary


def summary_row(load, c):
    """One (model, system, load): medians and spreads over its rounds."""
    def spread(key):
        xs = finite(c[key])
        return (min(xs), max(xs)) if xs else (math.nan, math.nan)

    kept = median(c["kept"])
    return {"load": load, "rounds": len(c["round"]), "request": c["request"],
            "p50_ms": median(c["p50_ms"]), "p99_ms": median(c["p99_ms"]),
            "p50_ratio": median(c["p50_ratio"]),
            "p99_ratio": median(c["p99_ratio"]),
            "p99_ratio_min": spread("p99_ratio")[0],
            "p99_ratio_max": spread("p99_ratio")[1],
            "kept": kept, "kept_of_idle": kept / (1 - load),
            "kept_min": spread("kept")[0], "kept_max": spread("kept")[1],
            "skipped": sum(c["skipped"]),
            "per_round": {k: c[k] for k in PER_ROUND}}


def add_pooled(summary, latencies):
    """The p99 of every round's requests together, and its ratio to alone's."""
    pooled = {}
    for key, models in latencies.items():
        system = key.split("-", 1)[1]
        for kind, loads in models.items():
            for load, xs in loads.items():
                pooled.setdefault((kind, system, float(load)), []).extend(xs)
    for kind, systems in summary["models"].items():
        for system, rows in systems.items():
            for row in rows:
                xs = pooled.get((kind, system, row["load"]))
                ref = pooled.get((kind, "alone", row["load"]))
                if xs and ref:
                    row["p99_pooled_ms"] = percentile(xs, 0.99) / 1e3
                    row["p99_pooled_ratio"] = (percentile(xs, 0.99) /
                                               percentile(ref, 0.99))


def fmt(x, digits=2):
    if x is None or math.isnan(x):
        return "-"
    if abs(x) >= 100:
        return f"{x:.0f}"
    if abs(x) >= 10:
        return f"{x:.1f}"
    return f"{x:.{digits}f}"


def print_summary(results, latencies=None):
    s = summarize(results, latencies)
    results["summary"] = s
    n = len(results["rounds"])
    t = s["training"]
    print(f"\n==== colocation: median of {n} round(s); cell = p99 / alone's "
          f"p99 (pooled over rounds) | training kept of exclusive")
    print(f"training alone: {fmt(t['exclusive_steps_per_s'], 1)} steps/s; "
          f"under Baton {fmt(t['baton_alone_ratio'], 3)}x")
    for kind, systems in s["models"].items():
        ref = systems.get("alone", [])
        loads = [row["load"] for row in ref] or sorted(
            {row["load"] for rows in systems.values() for row in rows})
        services = [rn["models"][kind]["service_ms"]
                    for rec in results["rounds"]
                    for name, rn in rec["runs"].items()
                    if name == "alone" and kind in rn.get("models", {})]
        how = ref[0]["request"][:60] if ref else "?"
        print(f"\n{kind} ({how}; {fmt(median(services))} ms per request "
              f"alone); alone's p99 ms: " +
              ", ".join(f"{row['load']:g}: {'>' if row['skipped'] else ''}"
                        f"{fmt(row['p99_ms'])}" for row in ref))
        print(f"{'system':<12}" + "".join(f"{f'{l:g}':>22}" for l in loads))
        for system, rows in systems.items():
            if system == "alone":
                continue
            by = {row["load"]: row for row in rows}
            cells = []
            for load in loads:
                row = by.get(load)
                if not row:
                    cells.append(f"{'-':>22}")
                    continue
                mark = ">" if row["skipped"] else ""
                if ref:
                    p99 = (f"{mark}{fmt(row['p99_ratio'])}x ("
                           f"{fmt(row.get('p99_pooled_ratio', math.nan))})")
                else:  # no reference: milliseconds
                    p99 = f"{mark}{fmt(row['p99_ms'])} ms"
                cell = f"{p99} | {fmt(row['kept'])}"
                cells.append(f"{cell:>22}")
            print(f"{system:<12}" + "".join(cells))
        for system in (*LC_SMS, *REGISTRY):  # the colocated Baton systems
            row = {r["load"]: r for r in systems.get(system, [])}.get(0.5)
            if row and ref:
                ok = row["p99_ratio"] <= 1.05 and row["kept"] >= 0.60
                print(f"target at 50% load, {system}: p99 "
                      f"{fmt(row['p99_ratio'], 3)}x (<= 1.05), kept "
                      f"{fmt(row['kept'])} (>= 0.60; of idle "
                      f"{fmt(row['kept_of_idle'])}): "
                      f"{'met' if ok else 'not met'}")
    for note in results["notes"]:
        print(f"note: {note}")
    for rec in results["rounds"]:
        for system, why in rec["failed"].items():
            print(f"round {rec['round']} {system}: "
                  f"{why.splitlines()[0] if why else why}")


def print_table(results):
    """The table of a single-round results.json of the first format, which
    bench/torch/colocate_torch.py still writes."""
    systems = results["systems"]
    alone = systems.get("alone")
    if not alone:
        print("no reference run")
        return
    train_ref = alone["train_alone_steps_per_s"]
    ref = {w["load"]: w for w in alone["windows"]}
    print(f"inference alone: {alone['service_ms']:.2f} ms per request; "
          f"training alone: {train_ref:.1f} steps/s, loss {alone['loss']:.6f}")
    if "baton-train-alone" in systems:
        b = systems["baton-train-alone"]
        print(f"training alone under Baton: {b['train_alone_steps_per_s']:.1f}"
              f" steps/s ({b['train_alone_steps_per_s'] / train_ref:.3f}x),"
              f" loss {b['loss']:.6f}")
    print(f"{'system':<12} {'load':>5} {'p50 ms':>8} {'p99 ms':>8} "
          f"{'p99/alone':>9} {'train kept':>10} {'of idle':>8}")
    for name, s in systems.items():
        for w in s.get("windows", []):
            r = ref.get(w["load"])
            kept = w.get("train_steps_per_s", float("nan")) / train_ref
            if name == "alone":
                kept = float("nan")
            print(f"{name:<12} {w['load']:>5.2f} {w['p50_ms']:>8.2f} "
                  f"{w['p99_ms']:>8.2f} {w['p99_ms'] / r['p99_ms']:>9.3f} "
                  f"{kept:>10.3f} {kept / (1 - w['load']):>8.3f}")
    for name, why in results["notes"].items():
        print(f"note: {name}: {why}")


# ------------------------------------------------------------------- main

def parser():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--lib", help="libbaton_train_mlp.so (required to run)")
    p.add_argument("--out", help="output folder (required to run)")
    p.add_argument("--models", "--model", default="bert,cnn",
                   help="inference models, comma-separated: bert, cnn")
    p.add_argument("--systems", default=",".join(DEFAULT_SYSTEMS),
                   help=f"comma-separated, of: {', '.join(SYSTEMS)}; "
                   "or all")
    p.add_argument("--loads", default="0.1,0.3,0.5,0.7,0.9")
    p.add_argument("--rounds", type=int, default=3,
                   help="runs of every (system, load), interleaved")
    p.add_argument("--window", type=float, default=1.0,
                   help="seconds of requests per model and load")
    p.add_argument("--overrun", type=float, default=2.0,
                   help="a window stops serving when its queue runs past "
                   "this many times its length (0: never)")
    p.add_argument("--train-for", type=float, default=2.0,
                   help="seconds each training-alone reference runs")
    p.add_argument("--deadline", type=float, default=500,
                   help="seconds for the whole run: a round that would end "
                   "later is not started")
    p.add_argument("--graph", action=argparse.BooleanOptionalAction,
                   default=True, help="replay each request from a CUDA graph")
    p.add_argument("--dry-run", action="store_true",
                   help="print the plan and its time estimate; no GPU")
    p.add_argument("--share-linger-us", type=int, default=0,
                   help="under baton-procs(-mps): how long training stays "
                   "paused after a request ends (BATON_SHARE_LINGER_US)")
    p.add_argument("--lc-sms", type=int, default=66,
                   help="SMs inference asks for under baton-space and "
                   "baton-reserve")
    p.add_argument("--batch", type=int, default=1024,
                   help="training batch (MLP)")
    p.add_argument("--hidden", type=int, default=1024)
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--splits", type=int, default=1,
                   help="training (MLP): inner loops of the products and "
                   "the bias gradient split in this many ranges, each a "
                   "block of its own (train_mlp.cu): shorter blocks, which "
                   "inference waits for when training yields")
    p.add_argument("--model-layers", type=int, default=4,
                   help="encoder layers of the BERT-style model")
    p.add_argument("--infer-batch", type=int, default=8,
                   help="inference batch (1-8)")
    p.add_argument("--cnn-depth", type=int, default=34, choices=(18, 34))
    p.add_argument("--image-size", type=int, default=224)
    p.add_argument("--service-ms", default="",
                   help="request service times that set the arrival rates, "
                   "as bert=MS,cnn=MS or one MS for all (default: measured "
                   "by the first reference run)")
    p.add_argument("--system", help=argparse.SUPPRESS)
    p.add_argument("--role", help=argparse.SUPPRESS)
    p.add_argument("--round", type=int, default=0, help=argparse.SUPPRESS)
    return p


def parse_service(text, models):
    service = {}
    for part in filter(None, str(text).split(",")):
        if "=" in part:
            k, v = part.split("=", 1)
            service[k] = float(v)
        else:
            service.update({k: float(part) for k in models})
    return {k: v for k, v in service.items() if v > 0}


def parse(argv=None):
    p = parser()
    args = p.parse_args(argv)
    args.loads = [float(x) for x in args.loads.split(",")]
    args.models = [m for m in args.models.split(",") if m]
    args.systems = (list(SYSTEMS) if args.systems == "all" else
                    [s for s in args.systems.split(",") if s])
    for m in args.models:
        if m not in MODELS:
            p.error(f"unknown model {m!r}: {', '.join(MODELS)}")
    for s in args.systems:
        if s not in SYSTEMS:
            p.error(f"unknown system {s!r}: {', '.join(SYSTEMS)}")
    if not all(0 < l < 1 for l in args.loads):
        p.error("loads are fractions in (0, 1)")
    if args.rounds < 1 or args.window <= 0:
        p.error("--rounds >= 1 and --window > 0")
    if not args.dry_run and not (args.lib and args.out):
        p.error("--lib and --out are required (or --dry-run)")
    if args.lib:
        args.lib = os.path.abspath(args.lib)
    args.service = parse_service(args.service_ms, args.models)
    return args


def dry_run(args):
    """The plan, and the children's command lines parsed back (the same
    parser): what can be checked without a GPU."""
    args.lib = args.lib or "libbaton_train_mlp.so"
    args.out = args.out or "OUT"
    print_plan(args, plan(args))
    pair = ["inference", "train"]
    roles = {"alone": pair, "baton-train-alone": ["train"],
             **{system: pair for system in TWO_PROCESSES}}
    for system in args.systems:
        for role in roles.get(system, ["both"]):
            cmd = child_command(args, system, role, 1)
            back = parse(cmd[2:])
            assert (back.system, back.role, back.models, back.loads,
                    back.graph, back.window) == (
                        system, role, args.models, args.loads, args.graph,
                        args.window), cmd
    print(f"child command lines parse back; e.g.\n  "
          f"{' '.join(child_command(args, 'baton-time', 'both', 1)[1:])}")


def main():
    args = parse()
    if args.dry_run:
        dry_run(args)
    elif args.role:
        role_main(args)
    else:
        orchestrate(args)


if __name__ == "__main__":
    main()
