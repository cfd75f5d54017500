"""Runs a GPU check's scenarios, each in a process of its own (a hang or a
broken CUDA context stays in that process), and prints one line per
scenario. Shared by check_graphs.py, check_loads.py and check_bypass.py.

A check builds its argparse parser with its own options, then calls
main(parser, functions, tag): `functions` maps a scenario's name to a
function of the parsed arguments that returns (ok, detail); detail is
written to OUT/<tag>-<name>.json. The options --scenarios, --out,
--timeout (default_timeout) and --run (one scenario, in this process) are
added here; the check's own options are passed on to each scenario's
process as they were given.
"""

import argparse
import json
import os
import subprocess
import sys
import time


def _run_one(name, fn, args, tag):
    import faulthandler
    # A hang shows where every thread is before the parent's limit.
    faulthandler.dump_traceback_later(max(args.timeout - 15, 10), exit=True)
    ok, detail = fn(args)
    detail["ok"] = bool(ok)
    with open(os.path.join(args.out, f"{tag}-{name}.json"), "w") as f:
        json.dump(detail, f, indent=1, default=str)
    print(json.dumps(detail, default=str)[:2000], flush=True)
    return 0 if ok else 1


def main(parser, functions, tag, default_timeout, log):
    parser.add_argument("--scenarios", default=",".join(functions))
    parser.add_argument("--out", default=".")
    parser.add_argument("--timeout", type=float, default=default_timeout)
    parser.add_argument("--run", help=argparse.SUPPRESS)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    if args.run:
        return _run_one(args.run, functions[args.run], args, tag)
    names = args.scenarios.split(",")
    for name in names:
        if name not in functions:
            parser.error(f"unknown scenario {name!r}")
    # The check's own options, as given; --scenarios is replaced by --run.
    passed_on, skip = [], False
    for arg in sys.argv[1:]:
        if skip:
            skip = False
        elif arg == "--scenarios":
            skip = True
        elif not arg.startswith("--scenarios="):
            passed_on.append(arg)
    rows, failed = [], 0
    width = max(len(n) for n in functions) + 2
    for name in names:
        log(f"{name}: running")
        t = time.time()
        cmd = [sys.executable, os.path.abspath(sys.argv[0]), "--run", name,
               *passed_on]
        try:
            rc = subprocess.run(cmd, timeout=args.timeout).returncode
            verdict = "PASS" if rc == 0 else f"FAIL (exit {rc})"
        except subprocess.TimeoutExpired:
            verdict = f"FAIL (no result within {args.timeout:.0f} s)"
        failed += verdict != "PASS"
        rows.append(f"{name:<{width}} {verdict:<32} {time.time() - t:6.1f} s")
    print("\n".join(rows), flush=True)
    return 1 if failed else 0
