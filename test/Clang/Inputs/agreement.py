#!/usr/bin/env python3
"""The LLVM plugin and baton-ptx agree on real kernels.

For every test/corpus/src/NAME.cu: compile it with clang-22 and the plugin
(-fpass-plugin, -baton-report), and run baton-ptx on clang's plain PTX of
the same source (test/corpus/clang/NAME.ptx, made by scripts/build-corpus.sh
with the same flags). Then check that
  * ptxas accepts the plugin's PTX;
  * both reports list the same kernels, with the same variants made and the
    same refusal kinds per kernel;
  * every variant .entry has the same parameter list in both modules;
  * every original .entry is byte-for-byte the one clang emits without the
    plugin.
Prints one line per module and FAIL lines for every disagreement.

usage: agreement.py --baton-ptx B --plugin P --ptxas X --corpus DIR --work W
                    -- CLANG_CUDA_COMMAND...
"""
import argparse
import json
import os
import re
import subprocess
import sys

# Per-source flags, as in scripts/build-corpus.sh (RDC_FILES, CLANG_EXTRA).
EXTRA = {"refuse_dynpar": ["-fgpu-rdc"],
         "refuse_cluster": ["-D_CG_CLUSTER_INTRINSICS_AVAILABLE"]}
ENTRY_RE = re.compile(r"^\.visible \.entry (\w+)\(\n(.*?)^\)[^\n]*\n(.*?)^}\n",
                      re.S | re.M)


def entries(path):
    """{name: (parameter types, whole text)} of every .entry in a PTX file."""
    text = open(path).read()
    out = {}
    for m in ENTRY_RE.finditer(text):
        params = [re.sub(r"\s+\S+$", "", p.strip())
                  for p in m.group(2).split(",\n") if p.strip()]
        out[m.group(1)] = (params, m.group(0))
    return out


def decisions(report):
    with open(report) as f:
        kernels = json.load(f)["kernels"]
    return {k["name"]: (k["variants"]["slice"] is not None,
                        k["variants"]["ptb"] is not None,
                        sorted(r["kind"] for r in k["refusals"]))
            for k in kernels}


def main():
    ap = argparse.ArgumentParser()
    for opt in ("--baton-ptx", "--plugin", "--ptxas", "--corpus", "--work"):
        ap.add_argument(opt, required=True)
    ap.add_argument("clang", nargs="+")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    failures = []
    src_dir = os.path.join(a.corpus, "src")
    for src in sorted(f for f in os.listdir(src_dir) if f.endswith(".cu")):
        name = src[:-3]
        plain = os.path.join(a.corpus, "clang", name + ".ptx")
        if not os.path.exists(plain):
            continue
        w = os.path.join(a.work, name)
        cmd = a.clang + EXTRA.get(name, []) + [
            "--cuda-device-only", "-S", "-O3", "-fpass-plugin=" + a.plugin,
            "-mllvm", "-baton-report=" + w + ".plugin.json",
            "-o", w + ".plugin.ptx", os.path.join(src_dir, src)]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode:
            failures.append(f"{name}: clang failed:\n{r.stderr}")
            continue
        ptxas = [a.ptxas, "-arch=sm_90a"] + (["-c"] if name in ("refuse_dynpar",) else [])
        r = subprocess.run(ptxas + [w + ".plugin.ptx", "-o", os.devnull],
                           capture_output=True, text=True)
        if r.returncode:
            failures.append(f"{name}: ptxas rejected the plugin's PTX:\n{r.stderr}")
        r = subprocess.run([a.baton_ptx, plain, "-o", w + ".tool.ptx",
                            "--report", w + ".tool.json", "-q"],
                           capture_output=True, text=True)
        if r.returncode:
            failures.append(f"{name}: baton-ptx failed: {r.stderr}")
            continue
        tool, plug = decisions(w + ".tool.json"), decisions(w + ".plugin.json")
        if tool != plug:
            for k in sorted(set(tool) | set(plug)):
                if tool.get(k) != plug.get(k):
                    failures.append(f"{name}: {k}: baton-ptx {tool.get(k)} "
                                    f"!= plugin {plug.get(k)}")
        te, pe, orig = entries(w + ".tool.ptx"), entries(w + ".plugin.ptx"), entries(plain)
        for k in sorted(set(te) | set(pe)):
            if te.get(k, (None,))[0] != pe.get(k, (None,))[0]:
                failures.append(f"{name}: .entry {k}: parameters differ: "
                                f"{te.get(k, (None,))[0]} vs {pe.get(k, (None,))[0]}")
        for k, (_, text) in orig.items():
            if pe.get(k, (None, None))[1] != text:
                failures.append(f"{name}: original {k} differs with the plugin")
        made = sum(v[0] + v[1] for v in plug.values())
        print(f"{name:20} {len(plug):3} kernels {made:3} variants")
    for f in failures:
        print("FAIL " + f)
    print(f"agreement: {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
