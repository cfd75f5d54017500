#!/usr/bin/env python3
"""Takes apart the slowest requests of a traced colocation run.

Reads the scheduler's trace (BATON_TRACE=1) of one process that ran
requests as latency-critical brackets (colocate.py's `baton-*` systems) and
prints, for the slowest requests, where their time went: the service
thread's delay in taking the bracket, when the last best-effort launch
stopped after it, and every trace line of the request. A request is its
bracket: from `bracket N begins` (the caller's thread, before the request
is queued) to `bracket N ends` (after its stream was waited for).

    slow_requests.py children.log[.gz] [--results results.json]
                     [--system baton-time] [--top 12] [--lines 60]

With --results (the run's colocate.py results), the last brackets are
split into the run's windows (model and load) by their request counts;
brackets before them (service-time measurements) are left out.
"""
import argparse
import gzip
import json
import re
import statistics

LINE = re.compile(r"baton-trace\s+(\d+\.\d+): (.*)")
POSTED = re.compile(r"bracket (\d+) (begins|ends)\b")
TAKEN = re.compile(r"begin external LC \d+ \(bracket (\d+)\)")
PAUSE = re.compile(r"pause (\d+)$")
STOPPED = re.compile(r"paused (\d+) after")
RESUMED = re.compile(r"(resume|original) (\d+)")


def read(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", errors="replace") as f:
        for raw in f:
            m = LINE.search(raw)
            if m:
                yield float(m.group(1)), m.group(2)


class Request:
    def __init__(self, bracket):
        self.bracket = bracket
        self.posted = self.ends = self.taken = None
        self.first = self.last = 0  # indices of its lines in the trace

    @property
    def duration(self):
        return self.ends - self.posted


def requests_of(lines):
    """The trace's complete brackets, in the order they began."""
    by_bracket = {}
    for i, (t, text) in enumerate(lines):
        if m := POSTED.match(text):
            r = by_bracket.setdefault(int(m.group(1)), Request(int(m.group(1))))
            if m.group(2) == "begins":
                r.posted, r.first = t, i
            else:
                r.ends, r.last = t, i
        elif m := TAKEN.match(text):
            r = by_bracket.setdefault(int(m.group(1)), Request(int(m.group(1))))
            r.taken = t
    return sorted((r for r in by_bracket.values()
                   if r.posted is not None and r.ends is not None),
                  key=lambda r: r.bracket)


def stops_after(lines, r):
    """Launches asked to pause while r was open, when each was asked and
    when it stopped, and the resumes seen meanwhile."""
    asked, stopped, resumed = {}, {}, []
    for t, text in lines[r.first:r.last + 1]:
        if m := PAUSE.match(text):
            asked.setdefault(int(m.group(1)), t)
        elif (m := STOPPED.match(text)) and int(m.group(1)) in asked:
            stopped.setdefault(int(m.group(1)), t)
        elif m := RESUMED.match(text):
            resumed.append((t, text))
    return asked, stopped, resumed


def windows_of(results_path, system, reqs):
    """[(label, requests)] of `system`'s run in `results_path` (one
    round; its process made the trace)."""
    with open(results_path) as f:
        results = json.load(f)
    rounds = results["rounds"]
    if len(rounds) != 1 or system not in rounds[0]["runs"]:
        raise SystemExit(f"{results_path}: expected one round with a "
                         f"'{system}' run")
    models = rounds[0]["runs"][system]["models"]
    spans = [(f"{model} {w['load']}", w["requests"])
             for model, m in models.items() for w in m["windows"]]
    total = sum(n for _, n in spans)
    if total > len(reqs):
        raise SystemExit(f"the trace has {len(reqs)} requests, the results "
                         f"{total}")
    out, at = [], len(reqs) - total
    for label, n in spans:
        out.append((label, reqs[at:at + n]))
        at += n
    return out


def show_request(lines, r, most_lines):
    asked, stopped, resumed = stops_after(lines, r)
    t0 = r.posted
    last_stop = max(stopped.values(), default=None)
    print(f"\n== bracket {r.bracket}: {r.duration:.0f} us; taken +"
          f"{(r.taken - t0) if r.taken else float('nan'):.0f}; "
          f"{len(asked)} launches asked to pause, last stopped +"
          f"{(last_stop - t0) if last_stop else float('nan'):.0f}; "
          f"not stopped inside: {sorted(set(asked) - set(stopped))}; "
          f"resumed inside: {len(resumed)}")
    shown = lines[max(r.first - 8, 0):r.last + 1]
    if len(shown) > most_lines:
        half = most_lines // 2
        shown = shown[:half] + [(None, "...")] + shown[-half:]
    for t, text in shown:
        print(f"  {'' if t is None else f'{t - t0:+9.1f}'}  {text}")


def show_window(lines, reqs, label, top, most_lines):
    durations = sorted(r.duration for r in reqs)
    n = len(durations)
    taken = [r.taken - r.posted for r in reqs if r.taken is not None]
    # Of the requests that paused something: when the last launch was
    # asked, and when the last one stopped, after the bracket began.
    last_asked, last_stopped = [], []
    for r in reqs:
        asked, stopped, _ = stops_after(lines, r)
        if asked:
            last_asked.append(max(asked.values()) - r.posted)
        if stopped:
            last_stopped.append(max(stopped.values()) - r.posted)

    def median(xs):
        return statistics.median(xs) if xs else float("nan")
    print(f"\n#### {label}: {n} requests: p50 {durations[n // 2]:.0f} us, "
          f"p99 {durations[int(n * 0.99)]:.0f} us, max {durations[-1]:.0f} "
          f"us; bracket taken after median {median(taken):.0f} us, max "
          f"{max(taken, default=float('nan')):.0f}; {len(last_asked)} of them "
          f"paused launches: last asked after median "
          f"{median(last_asked):.0f} us, last stopped after "
          f"{median(last_stopped):.0f} us")
    for r in sorted(reqs, key=lambda r: -r.duration)[:top]:
        show_request(lines, r, most_lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("trace")
    ap.add_argument("--results", help="the run's colocate.py results.json")
    ap.add_argument("--system", default="baton-time")
    ap.add_argument("--top", type=int, default=12)
    ap.add_argument("--lines", type=int, default=60)
    args = ap.parse_args()
    lines = list(read(args.trace))
    reqs = requests_of(lines)
    if not reqs:
        raise SystemExit("no bracketed requests in the trace")
    windows = (windows_of(args.results, args.system, reqs) if args.results
               else [("all", reqs)])
    for label, of_window in windows:
        show_window(lines, of_window, label, args.top, args.lines)


if __name__ == "__main__":
    main()
