#!/usr/bin/env python3
"""Compares settings measured in rounds of colocate.py runs.

A GPU call that weighs settings against each other runs colocate.py once per
setting and round, each into a folder SETTING-rROUND (on-r1, off-r1, on-r2,
...). This reads every DIR/SETTING-rROUND/results.json (or results.json.gz)
of the folders given, pools the rounds of each setting across them, and
prints, per model, load and setting, the chosen system's p99 over that
round's `alone` and the training it kept, the median and the range of
each, and then each round's (the folders in the order given, each in
round order):

  compare_settings.py [--system baton-time] DIR [DIR ...]

Rounds of one setting should come from runs of the same code: the folders
are pooled as given.
"""
import argparse
import gzip
import json
import re
import statistics
import sys
from pathlib import Path

RUN_DIR = re.compile(r"^(?P<setting>.+)-r(?P<round>\d+)$")


def results_files(folder):
    """(setting, round, path) for each run folder under \\p folder."""
    for child in sorted(Path(folder).iterdir()):
        match = RUN_DIR.match(child.name)
        if not match or not child.is_dir():
            continue
        for name in ("results.json", "results.json.gz"):
            path = child / name
            if path.exists():
                yield match["setting"], int(match["round"]), path
                break


def load(path):
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt") as f:
        return json.load(f)


def collect(folders, system):
    """{(model, load, setting): [((folder, round), p99 ratio, kept), ...]}"""
    rows = {}
    for index, folder in enumerate(folders):
        for setting, rnd, path in results_files(folder):
            models = load(path)["summary"]["models"]
            found = False
            for model, systems in models.items():
                for entry in systems.get(system, []):
                    key = (model, entry["load"], setting)
                    rows.setdefault(key, []).append(
                        ((index, rnd), entry["p99_ratio"], entry["kept"]))
                    found = True
            if not found:
                sys.exit(f"{path}: no '{system}' runs")
    return rows


def spread(values, digits):
    return (f"{statistics.median(values):.{digits}f} "
            f"({min(values):.{digits}f}-{max(values):.{digits}f})")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("folders", nargs="+", metavar="DIR")
    p.add_argument("--system", default="baton-time",
                   help="the system compared (default: baton-time)")
    args = p.parse_args()
    rows = collect(args.folders, args.system)
    if not rows:
        sys.exit("no SETTING-rROUND folders with results.json under "
                 + ", ".join(args.folders))
    print(f"{args.system}: p99 / alone and training kept, median (range), "
          "then by round")
    print(f"{'model':6} {'load':>5} {'setting':10} {'rounds':>6}  "
          f"{'p99 x':18} kept")
    for (model, load_, setting), runs in sorted(rows.items()):
        runs.sort()
        p99 = [r[1] for r in runs]
        kept = [r[2] for r in runs]
        print(f"{model:6} {load_:5.2f} {setting:10} {len(runs):6}  "
              f"{spread(p99, 2) + 'x':18} {spread(kept, 3):22} "
              f"by round: {' '.join(f'{x:.2f}' for x in p99)} | "
              f"{' '.join(f'{x:.3f}' for x in kept)}")


if __name__ == "__main__":
    main()
