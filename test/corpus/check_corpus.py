#!/usr/bin/env python3
"""Runs baton-ptx over every module of the corpus and checks the results.

For each .ptx under the corpus: baton-ptx must accept it, write a module that
ptxas assembles for the target the input names (sm_90a, sm_80, sm_100a...),
and account for every kernel (variants made, or a refusal with a reason).
Prints a per-module table and the totals, and fails if any module breaks
these rules or if fewer than 95% of the kernels outside the deliberate
refusal tests (refuse_*.ptx) get both variants.

Kernels whose only refusals are of a kind in SLICE_ONLY_BY_DESIGN are
counted apart, outside that 95%: Blackwell kernels that give up the
tensor-memory permit cannot have a PTB variant (docs/refusals.md), which
makes Triton's sm_100 matmuls slice-only.

usage: check_corpus.py BATON_PTX PTXAS CORPUS_DIR WORK_DIR
"""
import json
import os
import subprocess
import sys


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


SLICE_ONLY_BY_DESIGN = {"tensor-memory-permit"}


def target_of(path):
    """The first target of the module's .target directive (sm_90a if none)."""
    with open(path) as f:
        for line in f:
            if line.startswith(".target"):
                return line.split()[1].rstrip(",")
    return "sm_90a"


def main():
    baton_ptx, ptxas, corpus, work = sys.argv[1:5]
    os.makedirs(work, exist_ok=True)
    modules = sorted(
        os.path.join(root, f)
        for root, _, files in os.walk(corpus)
        for f in files if f.endswith(".ptx")
        # clang-plugin/ already holds the LLVM plugin's variants (checked by
        # test/Clang/agreement.test); baton-ptx would refuse them all as
        # name collisions.
        and os.path.basename(root) != "clang-plugin")
    failures = []
    totals = {"kernels": 0, "both": 0, "slice_only": 0, "none": 0,
              "regular": 0, "regular_both": 0, "by_design": 0}
    reasons = {}
    for path in modules:
        rel = os.path.relpath(path, corpus)
        out = os.path.join(work, rel.replace("/", "__"))
        report = out + ".json"
        r = run([baton_ptx, path, "-o", out, "--report", report, "-q"])
        if r.returncode != 0:
            failures.append(f"{rel}: baton-ptx failed: {r.stderr.strip()}")
            continue
        arch = "-arch=" + target_of(path)
        # Modules built with -rdc have unresolved externs: assemble as objects.
        a = run([ptxas, arch, out, "-o", os.devnull])
        if a.returncode != 0 and "Unresolved extern" in a.stderr:
            a = run([ptxas, arch, "-c", out, "-o", os.devnull])
        if a.returncode != 0:
            failures.append(f"{rel}: ptxas rejected the output:\n{a.stderr}")
            continue
        with open(report) as f:
            kernels = json.load(f)["kernels"]
        deliberate = os.path.basename(rel).startswith("refuse_")
        row = []
        for k in kernels:
            slice_ok = k["variants"]["slice"] is not None
            ptb_ok = k["variants"]["ptb"] is not None
            totals["kernels"] += 1
            kinds = {ref["kind"] for ref in k["refusals"]}
            by_design = slice_ok and kinds and kinds <= SLICE_ONLY_BY_DESIGN
            totals["by_design"] += bool(by_design)
            if not deliberate and not by_design:
                totals["regular"] += 1
                totals["regular_both"] += slice_ok and ptb_ok
            if slice_ok and ptb_ok:
                totals["both"] += 1
                continue
            totals["slice_only" if slice_ok else "none"] += 1
            if not k["refusals"]:
                failures.append(f"{rel}: {k['name']} lacks a variant but "
                                "has no refusal reason")
            for ref in k["refusals"]:
                reasons[ref["kind"]] = reasons.get(ref["kind"], 0) + 1
                row.append(f"{k['name']}: {ref['kind']}")
        print(f"{rel:40} {len(kernels):3} kernels"
              + (f"  refused: {'; '.join(row)}" if row else ""))
    print()
    print(f"modules: {len(modules)}  kernels: {totals['kernels']}  "
          f"both variants: {totals['both']}  slice only: "
          f"{totals['slice_only']}  none: {totals['none']}")
    print("refusals by kind: " + ", ".join(
        f"{k} {v}" for k, v in sorted(reasons.items())))
    print(f"slice only by design ({', '.join(sorted(SLICE_ONLY_BY_DESIGN))}): "
          f"{totals['by_design']}")
    ratio = totals["regular_both"] / max(totals["regular"], 1)
    print(f"other kernels outside refuse_* with both variants: "
          f"{totals['regular_both']}/{totals['regular']} ({ratio:.1%})")
    if ratio < 0.95:
        failures.append(f"only {ratio:.1%} of regular kernels got both "
                        "variants (need 95%)")
    for f in failures:
        print("FAIL: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
