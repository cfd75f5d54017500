"""Fifty-eighth session: the colocation MLP's training alone, by itself and
scheduled by Baton under several settings, one process per run, the
settings rotated over rounds. Prints steps/s per run, then a table.

  python3 alone_ab.py LIB ROUNDS TRACE-DIR [SETTING ...]

With settings named, only those run (orig always); each scheduled setting
also leaves 0.3 s of its trace (BATON_TRACE=1, after the warm-up) in
TRACE-DIR.
"""
import ctypes, json, os, subprocess, sys, time

CONFIGS = [  # name, env, steps per train_steps call
    ("orig", {}, 1),
    ("orig-x10", {}, 10),
    ("baton", {"BATON_SCHEDULE": "best-effort"}, 1),
    ("baton-x10", {"BATON_SCHEDULE": "best-effort"}, 10),
    ("all-originals", {"BATON_SCHEDULE": "best-effort",
                       "BATON_QUIET_ORIGINALS_UP_TO_US": "1000000000"}, 1),
    ("ahead-16", {"BATON_SCHEDULE": "best-effort",
                  "BATON_LAUNCHES_AHEAD_QUIET": "16"}, 1),
    ("no-idle-originals", {"BATON_SCHEDULE": "best-effort",
                           "BATON_IDLE_ORIGINAL_BLOCKS_US": "0"}, 1),
    ("no-device-times", {"BATON_SCHEDULE": "best-effort",
                         "BATON_TIME_RUNS_ON_DEVICE": "0"}, 1),
    ("no-first-shares", {"BATON_SCHEDULE": "best-effort",
                         "BATON_FIRST_SHARES": "0"}, 1),
    ("all-originals-ahead-16", {"BATON_SCHEDULE": "best-effort",
                                "BATON_QUIET_ORIGINALS_UP_TO_US": "1000000000",
                                "BATON_LAUNCHES_AHEAD_QUIET": "16"}, 1),
    ("timing-interval-1", {"BATON_SCHEDULE": "best-effort",
                           "BATON_QUIET_TIMING_INTERVAL": "1"}, 1),
    ("ahead-64-experiment", {"BATON_SCHEDULE": "best-effort",
                             "BATON_LAUNCHES_AHEAD_QUIET": "64",
                             "BATON_EXPERIMENT_MAX_AHEAD": "64"}, 1),
    ("all-originals-ahead-64-experiment", {
        "BATON_SCHEDULE": "best-effort",
        "BATON_QUIET_ORIGINALS_UP_TO_US": "1000000000",
        "BATON_LAUNCHES_AHEAD_QUIET": "64",
        "BATON_EXPERIMENT_MAX_AHEAD": "64"}, 1),
    ("ahead-16-no-device-times", {"BATON_SCHEDULE": "best-effort",
                                  "BATON_LAUNCHES_AHEAD_QUIET": "16",
                                  "BATON_TIME_RUNS_ON_DEVICE": "0"}, 1),
]


def child(lib_path, per_call, warm, measure):
    lib = ctypes.CDLL(lib_path)
    assert lib.train_init(1024, 1024, 4, 1, 1) == 0
    t0 = time.time()
    while time.time() - t0 < warm:
        assert lib.train_steps(per_call) == 0
    steps, t0 = 0, time.time()
    while time.time() - t0 < measure:
        assert lib.train_steps(per_call) == 0
        steps += per_call
    rate = steps / (time.time() - t0)
    lib.baton_synchronize()
    print(json.dumps({"steps_per_s": rate}), flush=True)


def main():
    if sys.argv[1] == "--child":
        child(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]),
              float(sys.argv[5]))
        return
    lib, rounds, trace_dir = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    named = set(sys.argv[4:])
    configs = [c for c in CONFIGS
               if not named or c[0] in named or c[0] == "orig"]
    results = {name: [] for name, _, _ in configs}
    for r in range(rounds):
        order = configs[r % len(configs):] + configs[:r % len(configs)]
        for name, env, per_call in order:
            out = subprocess.run(
                [sys.executable, __file__, "--child", lib, str(per_call),
                 "1.5", "2.0"], env=dict(os.environ, **env),
                capture_output=True, text=True, timeout=60)
            if out.returncode != 0:
                print(f"{name}: rc {out.returncode}: {out.stderr[-400:]}")
                continue
            rate = json.loads(out.stdout.strip().splitlines()[-1])[
                "steps_per_s"]
            results[name].append(rate)
            print(f"round {r + 1} {name}: {rate:.1f} steps/s", flush=True)
    for name, env, per_call in configs:  # the scheduler's decisions
        if "BATON_SCHEDULE" not in env:
            continue
        out = subprocess.run([sys.executable, __file__, "--child", lib,
                              str(per_call), "1.5", "0.3"],
                             env=dict(os.environ, BATON_TRACE="1", **env),
                             capture_output=True, text=True, timeout=60)
        open(os.path.join(trace_dir, f"trace-{name}.txt"), "w").write(
            out.stderr)
    base = sorted(results["orig"])[len(results["orig"]) // 2]
    print(f"\n| setting | steps/s (rounds) | median over orig's median |")
    print("| --- | --- | --- |")
    for name, _, _ in configs:
        rs = results[name]
        if not rs:
            continue
        med = sorted(rs)[len(rs) // 2]
        print(f"| {name} | {' '.join(f'{x:.1f}' for x in rs)} | "
              f"{med / base:.3f} |")


if __name__ == "__main__":
    main()
