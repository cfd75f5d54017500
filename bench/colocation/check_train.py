#!/usr/bin/env python3
"""check_train.py LIB - the colocation benchmark's training library on a GPU.

Trains the MLP of libbaton_train_mlp.so for a few steps in fresh processes:
with scheduling off, and scheduled best-effort while a thread plays an
inference client that opens and closes latency-critical brackets at random,
either pausing the training (time sharing) or vacating half the SMs (space
sharing). Checks that every scheduled run ends with bitwise the loss of the
run with scheduling off (every block ran exactly once), that the storms
reached the training's launches, and that the loss fell. It does so for the
MLP's kernels in one split and in SPLITS (train_mlp.cu: 3-D grids, partial
sums). Exits 77 (skipped) where there is no GPU.
"""
import ctypes
import json
import os
import random
import shutil
import struct
import subprocess
import sys
import threading
import time

import colocate  # its library loader and sizes: the benchmark's training

STEPS = 30
SPLITS = 8
HALF_THE_SMS = 66  # of an H100 or H200 (132 SMs)


def child(lib_path, storm, splits):
    lib = colocate.load_training(
        lib_path, None if storm == "off" else "best-effort")

    class Stats(ctypes.Structure):
        _fields_ = [(name, ctypes.c_ulonglong) for name in (
            "latency_critical", "best_effort", "resumes", "passed_through")]
    lib.baton_get_routing_stats.restype = Stats

    sizes = colocate.parser().parse_args([])
    if lib.train_init(sizes.batch, sizes.hidden, sizes.layers, splits,
                      1) != 0:
        sys.exit("train_init failed")
    if lib.train_steps(1) != 0:
        sys.exit("train_steps failed")
    first = lib.train_loss()
    stop = threading.Event()
    brackets = 0

    def interfere():
        nonlocal brackets
        rng = random.Random(7)
        sms = 0 if storm == "time" else HALF_THE_SMS
        while not stop.is_set():
            work = lib.baton_lc_begin(sms)
            time.sleep(rng.uniform(50e-6, 500e-6))
            lib.baton_lc_end(work)
            brackets += 1
            time.sleep(rng.uniform(50e-6, 1e-3))

    thread = threading.Thread(target=interfere)
    if storm != "off":
        thread.start()
    status = lib.train_steps(STEPS - 1)
    stop.set()
    if storm != "off":
        thread.join()
    if status != 0:
        sys.exit("train_steps failed")
    last = lib.train_loss()
    stats = lib.baton_get_routing_stats()
    lib.train_shutdown()
    print(json.dumps({
        "first": first, "last": last,
        "last_bits": struct.pack("<f", last).hex(), "brackets": brackets,
        "best_effort": stats.best_effort, "resumes": stats.resumes}))


def main():
    if sys.argv[1:2] == ["--child"]:
        _, _, lib, storm, splits = sys.argv
        return child(lib, storm, int(splits))
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    if not shutil.which("nvidia-smi") or subprocess.run(
            ["nvidia-smi", "-L"], capture_output=True).returncode != 0:
        print("SKIP: no NVIDIA GPU on this machine")
        return 77
    lib = os.path.abspath(sys.argv[1])
    failed = 0

    def check(name, ok):
        nonlocal failed
        print(("PASS: " if ok else "FAIL: ") + name)
        failed += not ok

    for splits in (1, SPLITS):
        runs = {}
        for storm in ("off", "time", "space"):
            env = {k: v for k, v in os.environ.items()
                   if k != "BATON_SCHEDULE"}
            start = time.monotonic()
            done = subprocess.run(
                [sys.executable, os.path.abspath(__file__), "--child", lib,
                 storm, str(splits)],
                env=env, capture_output=True, text=True, timeout=240)
            sys.stderr.write(done.stderr)
            if done.returncode != 0:
                print(f"FAIL: the {storm} run of {splits} split(s) exited "
                      f"with {done.returncode}")
                return 1
            runs[storm] = json.loads(done.stdout.strip().splitlines()[-1])
            print(f"{splits} split(s), {storm} "
                  f"({time.monotonic() - start:.1f} s): {runs[storm]}",
                  flush=True)
        ref = runs["off"]
        form = f"{splits} split(s)"
        for storm in ("time", "space"):
            run = runs[storm]
            check(f"{form}, {storm}-sharing storm ({run['brackets']} "
                  f"brackets): loss bitwise that of scheduling off",
                  run["last_bits"] == ref["last_bits"])
            check(f"{form}, {storm}-sharing storm: launches were scheduled "
                  f"({run['best_effort']} best-effort)",
                  run["best_effort"] > 0)
        check(f"{form}, time-sharing storm paused and resumed launches "
              f"({runs['time']['resumes']} resumes)",
              runs["time"]["resumes"] > 0)
        check(f"{form}: the loss fell over {STEPS} steps "
              f"({ref['first']:.7g} -> {ref['last']:.7g})",
              ref["last"] < ref["first"])
    print(f"{failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
