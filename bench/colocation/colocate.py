#!/usr/bin/env python3
"""Colocation benchmark: inference tail latency and training throughput.

Latency-critical job: a BERT-style encoder (PyTorch, fp16) answering
requests that arrive as a Poisson process at a load of 10-90% of the GPU
time it needs alone; each request's latency (arrival to completion,
queueing included) is recorded. Best-effort job: an MLP trained with SGD in
CUDA kernels of its own, built with the Baton plugin (libbaton_train_mlp.so,
train_mlp.cu), loaded with ctypes.

Systems, each in fresh processes so that no setting leaks into the next:
  alone        each job by itself (the references)
  shared       both in one process, plain streams, no control
  priority     both in one process, inference on a high-priority stream
  timeslice    two processes, the driver's time slicing
  mps          two processes under the MPS daemon (if it starts)
  baton-time   Baton: training scheduled best-effort, inference brackets each
               request with baton_lc_begin/end(0): training pauses
  baton-space  the same with baton_lc_begin(SMS): training shrinks to the
               SMs inference leaves

  colocate.py --lib libbaton_train_mlp.so --out DIR [--systems a,b] [--loads ...]
writes DIR/results.json and prints a table.
"""
import argparse
import ctypes
import json
import os
import random
import statistics
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))


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
        if self.lib.train_init(a.batch, a.hidden, a.layers, 1) != 0:
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


def build_model(args):
    import torch
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(
        d_model=768, nhead=12, dim_feedforward=3072, dropout=0.0,
        batch_first=True)
    model = torch.nn.TransformerEncoder(layer, num_layers=args.model_layers,
                                        enable_nested_tensor=False)
    model = model.half().cuda().eval()
    x = torch.randn(args.infer_batch, 128, 768, device="cuda",
                    dtype=torch.half)
    return model, x


def prepare(args, lib, lc_sms, priority):
    """Builds and warms up the model (before any training starts, so that
    memory, library handles and kernels are set up on a quiet GPU); returns
    the request function and the service time it measured alone."""
    import torch
    model, x = build_model(args)
    stream = torch.cuda.Stream(priority=priority)

    def request():
        work = lib.baton_lc_begin(lc_sms) if lc_sms is not None else 0
        with torch.cuda.stream(stream), torch.inference_mode():
            model(x)
        stream.synchronize()
        if lc_sms is not None:
            lib.baton_lc_end(work)

    return request, service_time(request, warmups=10)


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


def serve(args, request, service):
    """Answers Poisson requests at each load; returns per-load windows."""
    windows = []
    for load in args.loads:
        rng = random.Random(int(load * 1000))
        rate = load / service
        start = time.time()
        t0 = time.perf_counter()
        arrivals, t = [], 0.0
        while True:
            t += rng.expovariate(rate)
            if t > args.window:
                break
            arrivals.append(t0 + t)
        latencies, free_at = [], t0
        for arrival in arrivals:
            begin = max(arrival, free_at)
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
        windows.append({"load": load, "start": start, "end": end,
                        "requests": len(latencies),
                        "p50_ms": 1e3 * percentile(latencies, 0.50),
                        "p99_ms": 1e3 * percentile(latencies, 0.99),
                        "mean_ms": 1e3 * statistics.fmean(latencies)
                        if latencies else float("nan")})
    return windows


def steps_per_second(stamps, start, end):
    inside = [s for s in stamps if start <= s <= end]
    return len(inside) / (end - start) if end > start else 0.0


def role_main(args):
    """One process of a system: inference, training, or both."""
    sys.setswitchinterval(1e-4)  # the training thread waits on the GIL less
    schedule = {"baton-time": "best-effort", "baton-space": "best-effort",
                "baton-train-alone": "best-effort"}.get(args.system)
    lib = load_training(args.lib, schedule)
    request = None
    if args.role in ("inference", "both"):
        lc_sms = {"baton-time": 0, "baton-space": args.lc_sms}.get(args.system)
        priority = 0 if args.system == "shared" else -1
        request, measured = prepare(args, lib, lc_sms, priority)
    trainer = None
    if args.role in ("train", "both"):
        trainer = Trainer(lib, args)
        trainer.start()
        trainer.ready.wait()
        if trainer.error:
            sys.exit("training: " + trainer.error)
    result = {"system": args.system, "role": args.role}
    if args.role == "train":
        if args.train_for:
            time.sleep(args.train_for)
        else:
            print("ready", flush=True)
            sys.stdin.readline()  # the parent says when inference is done
    if request:
        # Every system sees the arrivals that the reference run's service
        # time implies, so that loads mean the same everywhere.
        service = args.service_ms / 1e3 if args.service_ms else measured
        result["service_ms"] = measured * 1e3
        result["windows"] = serve(args, request, service)
    if trainer:
        trainer.stop.set()
        trainer.join()
        result["loss"] = lib.train_loss()
        result["stamps"] = trainer.stamps
    lib.baton_synchronize()
    print(json.dumps(result), flush=True)


# ------------------------------------------------------------ orchestration

def child(args, system, role, extra_env=None, stdin=None):
    cmd = [sys.executable, os.path.abspath(__file__), "--lib", args.lib,
           "--system", system, "--role", role,
           "--loads", ",".join(str(l) for l in args.loads),
           "--window", str(args.window), "--lc-sms", str(args.lc_sms),
           "--out", args.out, "--service-ms", str(args.service_ms)]
    if role == "train" and system == "alone":
        cmd += ["--train-for", str(args.window * len(args.loads))]
    env = dict(os.environ, **(extra_env or {}))
    log = open(os.path.join(args.out, f"{system}-{role}.log"), "w")
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=log, env=env,
                            stdin=stdin, text=True)


def last_json(proc, system, role, timeout=100):
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise RuntimeError(f"{system}/{role} did not finish in {timeout} s")
    lines = [l for l in out.splitlines() if l.startswith("{")]
    if proc.returncode != 0 or not lines:
        raise RuntimeError(f"{system}/{role} failed (rc={proc.returncode}); "
                           f"see {system}-{role}.log")
    return json.loads(lines[-1])


def run_two_processes(args, system, env=None):
    train = child(args, system, "train", env, stdin=subprocess.PIPE)
    assert train.stdout.readline().strip() == "ready"
    infer = last_json(child(args, system, "inference", env), system,
                      "inference")
    train.stdin.write("\n")
    train.stdin.flush()
    trained = last_json(train, system, "train")
    return infer, trained


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


def orchestrate(args):
    os.makedirs(args.out, exist_ok=True)
    results = {"loads": args.loads, "systems": {}, "notes": {}}
    systems = args.systems
    alone_train = None
    for system in systems:
        print(f"== {system}", flush=True)
        try:
            if system == "alone":
                infer = last_json(child(args, "alone", "inference"), system,
                                  "inference")
                trained = last_json(child(args, "alone", "train"), system,
                                    "train")
                alone_train = len(trained["stamps"]) / max(
                    1e-9, trained["stamps"][-1] - trained["stamps"][0])
                infer["train_alone_steps_per_s"] = alone_train
                infer["loss"] = trained["loss"]
                args.service_ms = infer["service_ms"]
            elif system == "baton-train-alone":
                proc = child(args, system, "train", stdin=subprocess.PIPE)
                assert proc.stdout.readline().strip() == "ready"
                time.sleep(args.window * 2)
                proc.stdin.write("\n")
                proc.stdin.flush()
                trained = last_json(proc, system, "train")
                s = trained["stamps"]
                infer = {"train_alone_steps_per_s":
                         len(s) / max(1e-9, s[-1] - s[0]),
                         "loss": trained["loss"]}
            elif system in ("timeslice", "mps"):
                env = None
                if system == "mps":
                    env, why = start_mps()
                    if env is None:
                        results["notes"]["mps"] = why
                        print(f"   MPS did not start: {why}", flush=True)
                        continue
                try:
                    infer, trained = run_two_processes(args, system, env)
                finally:
                    if env:
                        stop_mps(env)
                for w in infer["windows"]:
                    w["train_steps_per_s"] = steps_per_second(
                        trained["stamps"], w["start"], w["end"])
                infer["loss"] = trained["loss"]
            else:
                infer = last_json(child(args, system, "both"), system, "both")
                for w in infer["windows"]:
                    w["train_steps_per_s"] = steps_per_second(
                        infer["stamps"], w["start"], w["end"])
                infer.pop("stamps", None)
        except Exception as e:  # keep the other systems' results
            results["notes"][system] = str(e)
            print(f"   failed: {e}", flush=True)
            continue
        infer.pop("stamps", None)
        results["systems"][system] = infer
        with open(os.path.join(args.out, "results.json"), "w") as f:
            json.dump(results, f, indent=1)
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump(results, f, indent=1)
    print_table(results)


def print_table(results):
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


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--lib", required=True, help="libbaton_train_mlp.so")
    p.add_argument("--out", required=True)
    p.add_argument("--systems", default="alone,baton-train-alone,baton-time,"
                   "baton-space,shared,priority,timeslice,mps")
    p.add_argument("--loads", default="0.1,0.3,0.5,0.7,0.9")
    p.add_argument("--window", type=float, default=3.0,
                   help="seconds of requests per load")
    p.add_argument("--lc-sms", type=int, default=66,
                   help="SMs inference asks for under baton-space")
    p.add_argument("--batch", type=int, default=1024)
    p.add_argument("--hidden", type=int, default=1024)
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--model-layers", type=int, default=4)
    p.add_argument("--infer-batch", type=int, default=8)
    p.add_argument("--service-ms", type=float, default=0,
                   help="request service time that sets the arrival rates "
                   "(default: measured by the reference run)")
    p.add_argument("--system", help=argparse.SUPPRESS)
    p.add_argument("--role", help=argparse.SUPPRESS)
    p.add_argument("--train-for", type=float, default=0,
                   help=argparse.SUPPRESS)
    args = p.parse_args()
    args.lib = os.path.abspath(args.lib)
    args.loads = [float(x) for x in args.loads.split(",")]
    args.systems = args.systems.split(",")
    if args.role:
        role_main(args)
    else:
        orchestrate(args)


if __name__ == "__main__":
    main()
