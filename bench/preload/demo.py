#!/usr/bin/env python3
"""Runs the launch-interposer demo once everything is built (run.sh builds
it): correctness, the interposer's overhead on training alone, and inference
next to training with and without Baton, time-sliced by the driver and then
under MPS (a private control daemon, where nvidia-cuda-mps-control starts).
Prints a table and writes OUT/preload.json.

  demo.py --work DIR --preload LIB --out DIR [--steps N] [--reps N]
          [--pair-seconds S] [--rate R] [--no-mps]

WORK holds train, libtrainkernels.so and the side-module cache. Every
process runs under a time limit; a failed step is recorded and the others
still run; the exit status is 1 if any failed.
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


class Demo:
    def __init__(self, args):
        self.args = args
        self.train = os.path.join(args.work, "train")
        self.registry = "/baton-preload-demo-%d" % os.getpid()
        self.failures = []
        self.extra_env = {}  # for every process (MPS's directories)

    def env(self, mode):
        """Environment for a process: plain (no Baton), preloaded with
        scheduling off, preloaded best-effort or latency-critical."""
        env = dict(os.environ, **self.extra_env)
        for key in ("LD_PRELOAD", "BATON_SCHEDULE", "BATON_VERBOSE"):
            env.pop(key, None)
        if mode == "plain":
            return env
        env["LD_PRELOAD"] = self.args.preload
        env["BATON_CACHE_DIR"] = os.path.join(self.args.work, "cache")
        env["BATON_SHARE_REGISTRY"] = self.registry
        env["BATON_VERBOSE"] = "1"
        if mode != "preload-off":
            env["BATON_SCHEDULE"] = {"be": "best-effort",
                                     "lc": "latency-critical"}[mode]
        return env

    def log(self, name):
        return os.path.join(self.args.out, name + ".log")

    def run(self, name, cmd, mode, limit):
        """Runs cmd to completion; its output goes to OUT/name.log. Returns
        the output, or None (recorded as a failure)."""
        print("=== %s (%s): %s" % (name, mode, " ".join(cmd)), flush=True)
        try:
            done = subprocess.run(cmd, env=self.env(mode), timeout=limit,
                                  stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True)
        except subprocess.TimeoutExpired as e:
            self.failures.append("%s: timed out after %d s" % (name, limit))
            open(self.log(name), "w").write(e.stdout or "")
            return None
        open(self.log(name), "w").write(done.stdout)
        if done.returncode != 0:
            self.failures.append("%s: exit status %d (see %s)" %
                                 (name, done.returncode, self.log(name)))
            return None
        return done.stdout

    def train_json(self, name, mode, extra, limit):
        path = os.path.join(self.args.out, name + ".json")
        out = self.run(name, [self.train, "--json", path] + extra, mode, limit)
        if out is None:
            return None, None
        return json.load(open(path)), out

    @staticmethod
    def scheduled(output):
        """The interposer's summary line: (scheduled, unchanged)."""
        m = re.search(r"(\d+) launches scheduled best-effort, (\d+) unchanged",
                      output or "")
        return (int(m.group(1)), int(m.group(2))) if m else (None, None)

    # ------------------------------------------------------------ steps

    def correctness(self):
        steps = ["--steps", "40"]
        plain, _ = self.train_json("correct-plain", "plain", steps, 300)
        baton, out = self.train_json("correct-baton", "be", steps, 300)
        scheduled, unchanged = self.scheduled(out)
        result = {
            "checksum_plain": plain and plain["checksum"],
            "checksum_baton": baton and baton["checksum"],
            "loss_plain": plain and plain["loss"],
            "loss_baton": baton and baton["loss"],
            "launches_scheduled": scheduled,
            "launches_unchanged": unchanged,
        }
        result["identical"] = bool(plain and baton and
                                   plain["checksum"] == baton["checksum"])
        if not result["identical"]:
            self.failures.append("correctness: checksums differ with Baton")
        if not scheduled:
            self.failures.append("correctness: no launch was scheduled")
        return result

    def overhead(self):
        modes = ["plain", "preload-off", "be"]
        rates = {m: [] for m in modes}
        counts = None
        for rep in range(self.args.reps):
            for mode in modes:  # interleaved: drift hits every mode alike
                data, out = self.train_json(
                    "alone-%s-%d" % (mode, rep), mode,
                    ["--steps", str(self.args.steps)], 600)
                if data:
                    rates[mode].append(data["it_per_s"])
                if mode == "be":
                    counts = self.scheduled(out)
        median = {m: statistics.median(r) if r else None
                  for m, r in rates.items()}
        result = {"it_per_s": rates, "median_it_per_s": median,
                  "launches_scheduled_unchanged": counts}
        if median["plain"] and median["be"]:
            result["overhead_be_pct"] = 100 * (1 - median["be"] /
                                               median["plain"])
        if median["plain"] and median["preload-off"]:
            result["overhead_off_pct"] = 100 * (1 - median["preload-off"] /
                                                median["plain"])
        return result

    def infer_cmd(self, name):
        return [sys.executable, os.path.join(HERE, "infer.py"),
                "--seconds", str(self.args.pair_seconds),
                "--rate", str(self.args.rate),
                "--json", os.path.join(self.args.out, name + ".json")]

    def infer_alone(self, name, mode):
        if self.run(name, self.infer_cmd(name), mode, 300) is None:
            return None
        return json.load(open(os.path.join(self.args.out, name + ".json")))

    def pair(self, name, train_mode, infer_mode):
        """Training and inference at once; training's rate is counted while
        inference measured."""
        stop = os.path.join(self.args.out, name + ".stop")
        if os.path.exists(stop):
            os.remove(stop)
        train_json = os.path.join(self.args.out, name + "-train.json")
        limit = self.args.pair_seconds + 240
        cmd = [self.train, "--seconds", str(limit - 30), "--stop-file", stop,
               "--json", train_json]
        print("=== %s: training (%s) + inference (%s)" %
              (name, train_mode, infer_mode), flush=True)
        train_log = open(self.log(name + "-train"), "w")
        trainer = subprocess.Popen(cmd, env=self.env(train_mode),
                                   stdout=train_log, stderr=subprocess.STDOUT)
        time.sleep(3)  # training reaches its loop before requests start
        infer = self.infer_alone(name + "-infer", infer_mode)
        open(stop, "w").close()
        try:
            trainer.wait(timeout=120)
        except subprocess.TimeoutExpired:
            trainer.kill()
            self.failures.append("%s: training did not stop" % name)
        if trainer.returncode != 0 or infer is None:
            self.failures.append("%s: a process failed (see logs)" % name)
            return {"infer": infer}
        train = json.load(open(train_json))
        inside = [t for t in train["step_done"]
                  if infer["start"] <= t <= infer["end"]]
        train_rate = len(inside) / (infer["end"] - infer["start"])
        out = open(self.log(name + "-train")).read()
        return {"infer": infer, "train_it_per_s": train_rate,
                "train_launches_scheduled_unchanged": self.scheduled(out)}


class Mps:
    """A private MPS control daemon for the demo's processes: its own pipe
    and log directories, so that it needs no system daemon and leaves any
    running one alone. start() returns None, or why MPS cannot be used."""

    def __init__(self, out):
        # The pipe directory holds a Unix socket: its path must be short.
        self.pipe = tempfile.mkdtemp(prefix="baton-mps-")
        self.env = {"CUDA_MPS_PIPE_DIRECTORY": self.pipe,
                    "CUDA_MPS_LOG_DIRECTORY": os.path.join(out, "mps-log")}
        os.makedirs(self.env["CUDA_MPS_LOG_DIRECTORY"], exist_ok=True)

    def control(self, *args, stdin=None):
        return subprocess.run(["nvidia-cuda-mps-control", *args], input=stdin,
                              env=dict(os.environ, **self.env), timeout=30,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True)

    def start(self):
        try:
            done = self.control("-d")
        except (OSError, subprocess.TimeoutExpired) as e:
            return "nvidia-cuda-mps-control: %s" % e
        if done.returncode != 0:
            return "nvidia-cuda-mps-control -d: exit status %d: %s" % (
                done.returncode, done.stdout.strip())
        time.sleep(1)
        return None

    def stop(self):
        try:
            self.control(stdin="quit\n")
        except (OSError, subprocess.TimeoutExpired):
            pass
        time.sleep(1)
        shutil.rmtree(self.pipe, ignore_errors=True)


def run_under_mps(demo, out):
    """Inference alone and the two pairs again, every process an MPS client;
    {"skipped": why} where MPS cannot be started."""
    mps = Mps(out)
    why = mps.start()
    if why:
        print("=== MPS not used: " + why, flush=True)
        return {"skipped": why}
    demo.extra_env = mps.env
    try:
        return {"infer_alone": demo.infer_alone("mps-infer-alone", "plain"),
                "pair_plain": demo.pair("mps-pair-plain", "plain", "plain"),
                "pair_baton": demo.pair("mps-pair-baton", "be", "lc")}
    finally:
        demo.extra_env = {}
        mps.stop()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--work", required=True)
    p.add_argument("--preload", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--steps", type=int, default=150)
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--pair-seconds", type=float, default=20)
    p.add_argument("--rate", type=float, default=50)
    p.add_argument("--no-mps", dest="mps", action="store_false",
                   help="skip the pairs under MPS")
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    demo = Demo(args)

    results = {"config": vars(args)}
    results["correctness"] = demo.correctness()
    results["overhead"] = demo.overhead()
    try:
        import torch  # noqa: F401  (the inference process needs it)
        have_torch = True
    except ImportError:
        have_torch = False
        demo.failures.append("pairs: PyTorch is not installed")
    if have_torch:
        results["infer_alone"] = demo.infer_alone("infer-alone", "plain")
        results["infer_alone_lc"] = demo.infer_alone("infer-alone-lc", "lc")
        results["pair_plain"] = demo.pair("pair-plain", "plain", "plain")
        results["pair_baton"] = demo.pair("pair-baton", "be", "lc")
        if args.mps:
            results["mps"] = run_under_mps(demo, args.out)
    results["failures"] = demo.failures
    with open(os.path.join(args.out, "preload.json"), "w") as f:
        json.dump(results, f, indent=1)
    print_table(results)
    return 1 if demo.failures else 0


def pair_rows(prefix, r):
    """Table rows of the pairs without and with Baton in results `r`."""
    return [(prefix + label, r[key].get("infer"), r[key].get("train_it_per_s"))
            for label, key in (("pair without Baton", "pair_plain"),
                               ("pair with Baton", "pair_baton"))]


def print_table(r):
    def num(x, fmt="%.2f"):
        return fmt % x if isinstance(x, (int, float)) else "-"

    c = r["correctness"]
    o = r["overhead"]
    m = o["median_it_per_s"]
    print("\n=== launch interposer (libbaton_preload.so) ===")
    print("correctness: checksum %s plain, %s with Baton: %s; %s launches "
          "scheduled, %s unchanged" %
          (c["checksum_plain"], c["checksum_baton"],
           "IDENTICAL" if c["identical"] else "DIFFERENT",
           c["launches_scheduled"], c["launches_unchanged"]))
    print("training alone (median of %d, it/s): plain %s, preloaded off %s, "
          "preloaded best-effort %s" %
          (len(o["it_per_s"]["plain"]), num(m["plain"]),
           num(m["preload-off"]), num(m["be"])))
    print("interposer overhead: %s %% best-effort, %s %% scheduling off "
          "(target <= 2 %%)" %
          (num(o.get("overhead_be_pct")), num(o.get("overhead_off_pct"))))
    if "pair_plain" in r:
        print("\n%-36s %9s %9s %11s" % ("setup", "p50 ms", "p99 ms",
                                        "train it/s"))
        rows = [("training alone", None, m["plain"]),
                ("training alone, Baton (best-effort)", None, m["be"]),
                ("inference alone", r.get("infer_alone"), None),
                ("inference alone, Baton (LC)", r.get("infer_alone_lc"), None)]
        rows += pair_rows("", r)
        mps = r.get("mps", {})
        if "skipped" in mps:
            print("under MPS: not run (%s)" % mps["skipped"])
        elif mps:
            rows.append(("MPS: inference alone", mps.get("infer_alone"), None))
            rows += pair_rows("MPS: ", mps)
        for label, inf, rate in rows:
            print("%-36s %9s %9s %11s" % (label, num(inf and inf["p50_ms"]),
                                          num(inf and inf["p99_ms"]),
                                          num(rate)))
    for f in r["failures"]:
        print("FAILED: " + f)


if __name__ == "__main__":
    sys.exit(main())
