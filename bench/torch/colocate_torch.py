#!/usr/bin/env python3
"""Colocation benchmark for PyTorch: torch.compile training under Baton
next to a PyTorch inference job.

Best-effort job: a GPT-2-style model (or the small CNN, --train cnn)
trained with torch.compile (workloads.py). Latency-critical job: the
BERT-style encoder of bench/colocation/colocate.py (build_model; fp16,
compiled here with torch.compile), answering Poisson requests at 20/50/80%
of the GPU time it needs alone (colocate.serve); latency is arrival to
completion, queueing included.

Systems, each in fresh processes:
  alone          inference alone; training alone with PyTorch's defaults
  settings       training alone with the Inductor settings baton.torch
                 applies (matmuls and convolutions as Triton templates),
                 Baton not installed: the reference for training kept
  baton-alone    training alone under baton.torch.enable("best-effort"):
                 first with no latency-critical client (launches not
                 routed: the cost of the hooks), then schedule="always"
                 (kernels of min_route_us or more routed, 100 us by
                 default; then every kernel): the cost of variants and
                 scheduler
  baton          both jobs in one process: training thread
                 enable("best-effort"), inference thread
                 enable("latency-critical"), each request in a
                 baton.torch.latency_critical() bracket (the encoder's
                 kernels are cuBLAS and native ops, not Triton kernels,
                 so no automatic bracket opens for them)
                 (the bypass gate on, as by default: kernels that
                 bypass Baton wait on the device while a request's
                 bracket is open, docs/torch.md)
  baton-nogate   baton with the bypass gate off (BATON_BYPASS_GATE=0)
  baton-procs    the same in two processes: they meet in the GPU's registry
                 of sharing processes (baton/share.h)
  baton-procs-mps  baton-procs under the MPS daemon, as docs/sharing.md
                 advises for an LC process of many small kernels (time
                 slicing costs it a slice whenever it goes idle)
  priority       both in one process, inference on a high-priority stream
  timeslice      two processes, the driver's time slicing
  mps            two processes under the MPS daemon (if it starts)

Colocated systems train with the `settings` configuration, so the training
job is the same everywhere and only the sharing differs.

  colocate_torch.py --out DIR [--systems ...] [--loads 0.2,0.5,0.8]
writes DIR/results.json (the format of bench/colocation/colocate.py, so
its plot.py draws it) and prints a table last.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(REPO, "bench", "colocation"))

import colocate as co  # noqa: E402  (inference workload, serve(), MPS)

PROCS = ("baton-procs", "baton-procs-mps")  # Baton in two processes
BATON_SYSTEMS = ("baton", "baton-nogate", "baton-alone") + PROCS
PAIRS = ("timeslice", "mps") + PROCS  # two processes
UNDER_MPS = ("mps", "baton-procs-mps")
BATON_ENV = {"CUDA_MODULE_LOADING": "EAGER", "CUDA_DEVICE_MAX_CONNECTIONS": "32"}


def log(msg):
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------- workers

def prepare_inference(args, stream, bracket=False):
    """Builds, compiles and warms up the inference job on `stream`; returns
    the request function and its service time alone (colocate.service_time:
    requests after an idle gap). `bracket`: each request is explicit
    latency-critical work for Baton."""
    import torch
    model, x = co.build_model(args)
    model = torch.compile(model)

    def run():
        with torch.cuda.stream(stream), torch.inference_mode():
            model(x)
        stream.synchronize()

    def bracketed():
        import baton.torch
        with baton.torch.latency_critical():
            run()

    request = bracketed if bracket else run
    return request, co.service_time(request, warmups=20)


class TrainThread(threading.Thread):
    """Builds, compiles and warms up the training job on its own thread,
    then trains until stopped."""

    def __init__(self, args, baton_priority=None):
        super().__init__(daemon=True)
        self.args = args
        self.baton = baton_priority
        self.ready = threading.Event()
        self.stop = threading.Event()
        self.trainer = None
        self.error = None
        self.warm_s = 0.0
        self.since = None  # time.monotonic() after compilation

    def run(self):
        try:
            import workloads
            t = time.time()
            if self.baton:
                import baton.torch
                import baton.triton
                baton.torch.enable("best-effort")
            self.trainer, since = workloads.warm_trainer(
                self.args.train, self.args.train_scale, self.stop)
            self.since = since
            if self.baton:
                ready = baton.triton.prepare_loaded(wait=True, timeout=240,
                                                    launched_since=since)
                log(f"training: variants ready for {ready} kernels")
            self.trainer.stamps.clear()
            self.warm_s = time.time() - t
            log(f"training ready after {self.warm_s:.0f} s")
        except Exception as e:  # reported by the role
            import traceback
            traceback.print_exc()
            self.error = f"{type(e).__name__}: {e}"
            self.ready.set()
            return
        self.ready.set()
        self.trainer.run(self.stop)


def start_trainer(args, baton_priority=None):
    """Starts a TrainThread and returns it once it trains; exits if it
    could not start."""
    trainer = TrainThread(args, baton_priority)
    trainer.start()
    trainer.ready.wait()
    if trainer.error:
        sys.exit("training: " + trainer.error)
    return trainer


def issue_ms(issue_s):
    """Median host time to issue one step, in ms."""
    return 1e3 * statistics.median(issue_s) if issue_s else 0.0


def steps_per_s(stamps):
    return len(stamps) / max(1e-9, stamps[-1] - stamps[0]) if len(stamps) > 1 else 0.0


def train_alone(args):
    """Training by itself: `alone` (PyTorch's defaults), `settings`
    (Baton's Inductor settings, no Baton), `baton-alone` (under
    baton.torch.enable, first not routed, then every launch routed)."""
    result = {"system": args.system, "role": "train"}
    if args.system == "settings":
        import baton.torch
        baton.torch.apply_inductor_settings("best-effort")
    trainer = start_trainer(args, "best-effort"
                            if args.system == "baton-alone" else None)
    time.sleep(args.train_for)
    result["steps_per_s"] = steps_per_s(list(trainer.trainer.stamps))
    result["issue_ms"] = issue_ms(trainer.trainer.issue_s)
    if args.system == "baton-alone":
        import baton.torch
        import baton.triton

        def phase(name):
            time.sleep(1.0)  # the first routed steps time short kernels
            n = len(trainer.trainer.stamps)
            k = len(trainer.trainer.issue_s)
            time.sleep(args.train_for)
            result[name + "_steps_per_s"] = steps_per_s(
                trainer.trainer.stamps[n:])
            result[name + "_issue_ms"] = issue_ms(trainer.trainer.issue_s[k:])

        baton.torch.set_schedule("always")  # kernels of min_route_us and more
        result["min_route_us"] = baton.torch.report()["min_route_us"]
        phase("routed")
        baton.triton.set_routing(True, min_route_us=0)  # every kernel
        phase("routed_all")
        result["report"] = baton.torch.report(launched_since=trainer.since)
    trainer.stop.set()
    trainer.join()
    result["loss"] = float(trainer.trainer.last_loss)
    result["warm_s"] = trainer.warm_s
    print(json.dumps(result, default=str), flush=True)


def role_main(args):
    """Roles with the inference job: `infer` (alone), `infer-pair` (the
    inference process of a two-process system), `both` (one process)."""
    sys.setswitchinterval(1e-4)  # the other thread waits on the GIL less
    import torch
    if args.role == "train":
        return train_alone(args)
    result = {"system": args.system, "role": args.role}
    if args.system in ("baton",) + PROCS:
        import baton.torch
        baton.torch.enable("latency-critical")  # a high-priority stream
        if args.system == "baton":
            baton.torch.set_schedule("never")   # until training is warm
        stream = torch.cuda.current_stream()
    else:
        stream = torch.cuda.Stream(priority=-1)
    # Compiled before any training setting applies: the same inference
    # kernels in every system.
    request, measured = prepare_inference(
        args, stream, bracket=args.system in ("baton",) + PROCS)
    trainer = None
    if args.role == "both":
        if args.system != "baton":
            import baton.torch
            baton.torch.apply_inductor_settings("best-effort")
        trainer = start_trainer(args, "best-effort"
                                if args.system == "baton" else None)
        if args.system == "baton":
            baton.torch.set_schedule("auto")
    elif args.role == "infer-pair":
        print("ready", flush=True)  # the training process is running
        sys.stdin.readline()
    service = args.service_ms / 1e3 if args.service_ms else measured
    result["service_ms"] = measured * 1e3
    result["windows"] = co.serve(args, request, service)
    if trainer:
        trainer.stop.set()
        trainer.join()
        result["stamps"] = trainer.trainer.stamps
        result["loss"] = float(trainer.trainer.last_loss)
    if args.system == "baton":
        result["report"] = baton.torch.report(launched_since=trainer.since)
    elif args.system in PROCS:
        result["report"] = baton.torch.report()
    print(json.dumps(result, default=str), flush=True)


def train_role_for_pair(args):
    """The training process of a two-process system: warms up, says ready,
    trains until told to stop on stdin, then prints its stamps. Under
    baton-procs it enables best-effort work and nothing else: its launches
    are routed once the inference process registers as latency-critical."""
    import baton.torch
    if args.system not in PROCS:
        baton.torch.apply_inductor_settings("best-effort")
    trainer = start_trainer(args, "best-effort"
                            if args.system in PROCS else None)
    print("ready", flush=True)
    sys.stdin.readline()
    trainer.stop.set()
    trainer.join()
    result = {"system": args.system, "role": "train",
              "stamps": trainer.trainer.stamps,
              "loss": float(trainer.trainer.last_loss)}
    if args.system in PROCS:
        result["report"] = baton.torch.report(launched_since=trainer.since)
    print(json.dumps(result, default=str), flush=True)


# ------------------------------------------------------------ orchestration

def child(args, system, role, stdin=None, env=None):
    cmd = [sys.executable, os.path.abspath(__file__), "--system", system,
           "--role", role, "--train", args.train,
           "--train-scale", args.train_scale,
           "--loads", ",".join(str(x) for x in args.loads),
           "--window", str(args.window), "--train-for", str(args.train_for),
           "--model-layers", str(args.model_layers),
           "--infer-batch", str(args.infer_batch),
           "--service-ms", str(args.service_ms), "--out", args.out]
    full_env = dict(os.environ, **(env or {}))
    if system in BATON_SYSTEMS:
        full_env.update(BATON_ENV)
    logf = open(os.path.join(args.out, f"{system}-{role}.log"), "w")
    log(f"start {system}/{role}")
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=logf,
                            stdin=stdin, env=full_env, text=True)


def result_of(proc, name, timeout):
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise RuntimeError(f"{name} did not finish in {timeout} s")
    lines = [l for l in out.splitlines() if l.startswith("{")]
    if proc.returncode != 0 or not lines:
        raise RuntimeError(f"{name} failed (rc={proc.returncode}); see its log")
    return json.loads(lines[-1])


def wait_ready(proc, name, timeout):
    box = {}
    t = threading.Thread(target=lambda: box.update(line=proc.stdout.readline()))
    t.start()
    t.join(timeout)
    if box.get("line", "").strip() != "ready":
        proc.kill()
        raise RuntimeError(f"{name} was not ready in {timeout} s")


def two_processes(args, system, env=None):
    train = child(args, system, "train-pair", stdin=subprocess.PIPE, env=env)
    wait_ready(train, f"{system}/train", args.timeout)
    infer = child(args, system, "infer", stdin=subprocess.PIPE, env=env)
    wait_ready(infer, f"{system}/infer", args.timeout)
    infer.stdin.write("\n")
    infer.stdin.flush()
    inferred = result_of(infer, f"{system}/infer", args.timeout)
    train.stdin.write("\n")
    train.stdin.flush()
    trained = result_of(train, f"{system}/train", 60)
    return inferred, trained


def orchestrate(args):
    os.makedirs(args.out, exist_ok=True)
    results = {"loads": args.loads, "train": args.train,
               "train_scale": args.train_scale, "systems": {},
               "training_alone": {}, "notes": {}}
    path = os.path.join(args.out, "results.json")

    def save():
        with open(path, "w") as f:
            json.dump(results, f, indent=1, default=str)

    ta = results["training_alone"]
    deadline = time.time() + args.deadline
    for system in args.systems:
        t0 = time.time()
        left = deadline - t0
        if left < args.min_system_s:
            results["notes"][system] = (f"not run: {left:.0f} s of the "
                                        f"{args.deadline:.0f} s budget left")
            log(f"== {system}: skipped, out of time")
            continue
        args.timeout = min(args.child_timeout, left)
        log(f"== {system} ({left:.0f} s left)")
        try:
            if system == "alone":
                infer = result_of(child(args, "alone", "infer"),
                                  "alone/infer", args.timeout)
                args.service_ms = infer["service_ms"]
                trained = result_of(child(args, "alone", "train"),
                                    "alone/train", args.timeout)
                ta["default"] = trained["steps_per_s"]
                infer["train_alone_steps_per_s"] = trained["steps_per_s"]
                infer["loss"] = trained["loss"]
                results["systems"]["alone"] = infer
            elif system == "settings":
                trained = result_of(child(args, "settings", "train"),
                                    "settings/train", args.timeout)
                ta["settings"] = trained["steps_per_s"]
                ta["settings_issue_ms"] = trained["issue_ms"]
                ta["settings_warm_s"] = trained["warm_s"]
            elif system == "baton-alone":
                trained = result_of(child(args, "baton-alone", "train"),
                                    "baton-alone/train", args.timeout)
                ta["baton_not_routed"] = trained["steps_per_s"]
                ta["baton_routed"] = trained["routed_steps_per_s"]
                ta["baton_routed_all"] = trained["routed_all_steps_per_s"]
                ta["min_route_us"] = trained["min_route_us"]
                for key, field in (("baton_not_routed", "issue_ms"),
                                   ("baton_routed", "routed_issue_ms"),
                                   ("baton_routed_all", "routed_all_issue_ms")):
                    ta[key + "_issue_ms"] = trained[field]
                results["baton_alone_report"] = trained.get("report")
            elif system in PAIRS:
                env = None
                if system in UNDER_MPS:
                    env, why = co.start_mps()
                    if env is None:
                        results["notes"][system] = why
                        log(f"MPS did not start: {why}")
                        continue
                try:
                    infer, trained = two_processes(args, system, env)
                finally:
                    if env:
                        co.stop_mps(env)
                for w in infer["windows"]:
                    w["train_steps_per_s"] = co.steps_per_second(
                        trained["stamps"], w["start"], w["end"])
                if "report" in trained:
                    infer["train_report"] = trained["report"]
                results["systems"][system] = infer
            else:
                infer = result_of(child(args, system, "both"), f"{system}/both",
                                  args.timeout)
                for w in infer["windows"]:
                    w["train_steps_per_s"] = co.steps_per_second(
                        infer["stamps"], w["start"], w["end"])
                infer.pop("stamps", None)
                results["systems"][system] = infer
        except Exception as e:  # keep the other systems' results
            results["notes"][system] = str(e)
            log(f"   {system} failed: {e}")
        log(f"   {system}: {time.time() - t0:.0f} s")
        save()
    alone = results["systems"].get("alone")
    if alone and "settings" in ta:
        # Training kept is measured against the same training job alone.
        alone["train_default_steps_per_s"] = alone["train_alone_steps_per_s"]
        alone["train_alone_steps_per_s"] = ta["settings"]
    save()
    print_table(results)


def print_table(results):
    ta = results["training_alone"]
    ref = ta.get("settings") or ta.get("default")
    size = results.get("train_scale", "bench")
    print(f"\n==== torch colocation ({results['train']} training, {size} "
          f"size) ====")
    if ref:
        routed = (f"enable, kernels >= {ta['min_route_us']:g} us routed"
                  if "min_route_us" in ta else "enable, default kernels routed")
        for key, what in (("default", "PyTorch defaults, no Baton"),
                          ("settings", "Baton's Inductor settings, no Baton"),
                          ("baton_not_routed", "baton.torch.enable, nothing routed"),
                          ("baton_routed", routed),
                          ("baton_routed_all", "enable, every kernel routed")):
            if key in ta:
                issue = ta.get(key + "_issue_ms")
                print(f"training alone, {what:<40} {ta[key]:8.2f} steps/s "
                      f"({ta[key] / ref:.3f}x)"
                      + (f", host issues a step in {issue:.2f} ms"
                         if issue is not None else ""))
    if "alone" in results["systems"]:
        co.print_table(results)
    else:
        for name, why in results["notes"].items():
            print(f"note: {name}: {why}")
    for line in baton_activity(results):
        print(line)


def baton_activity(results):
    """What Baton did in each Baton system: latency-critical brackets
    opened, best-effort launches routed and paused. A run in which routed
    launches were never paused measured routing, not preemption."""
    lines = []
    for name, r in results["systems"].items():
        for key, who in (("report", name), ("train_report",
                                            f"{name} (training process)")):
            counts = (r.get(key) or {}).get("scheduler")
            if not counts:
                continue
            brackets = counts["brackets"] + counts["auto_brackets"]
            lines.append(f"{who}: LC brackets {brackets}, BE launches "
                         f"routed {counts['best_effort']}, pauses "
                         f"{counts['pauses']}, gate waits "
                         f"{counts['gate_waits']}")
            if counts["best_effort"] and not counts["pauses"]:
                lines.append(f"warning: {who}: routed launches were never "
                             f"paused")
    return lines


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--out", required=True)
    p.add_argument("--systems", default="settings,alone,baton-alone,baton,"
                   "baton-procs,baton-procs-mps,priority,mps,timeslice")
    p.add_argument("--loads", default="0.2,0.5,0.8")
    p.add_argument("--window", type=float, default=3.0,
                   help="seconds of requests per load")
    p.add_argument("--train-for", type=float, default=5.0,
                   help="seconds each training-alone measurement runs")
    p.add_argument("--train", default="gpt", choices=("gpt", "cnn"))
    p.add_argument("--train-scale", default="bench", choices=("bench", "large"),
                   help="training size (bench/torch/workloads.py)")
    p.add_argument("--child-timeout", type=float, default=300,
                   help="seconds a child may take")
    p.add_argument("--deadline", type=float, default=450,
                   help="seconds for the whole run: systems that would start "
                   "later are skipped (and noted)")
    p.add_argument("--min-system-s", type=float, default=45,
                   help="a system starts only with this much time left")
    p.add_argument("--model-layers", type=int, default=4)
    p.add_argument("--infer-batch", type=int, default=8)
    p.add_argument("--service-ms", type=float, default=0)
    p.add_argument("--system", help=argparse.SUPPRESS)
    p.add_argument("--role", help=argparse.SUPPRESS)
    args = p.parse_args()
    args.loads = [float(x) for x in str(args.loads).split(",")]
    args.systems = args.systems.split(",")
    if args.system == "baton-nogate":  # a child: baton, the gate off
        os.environ["BATON_BYPASS_GATE"] = "0"
        args.system = "baton"
    if args.role == "train-pair":
        train_role_for_pair(args)
    elif args.role:
        if args.role == "infer" and args.system in PAIRS:
            args.role = "infer-pair"
        role_main(args)
    else:
        orchestrate(args)


if __name__ == "__main__":
    main()
