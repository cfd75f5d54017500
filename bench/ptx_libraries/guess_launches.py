#!/usr/bin/env python3
"""Guess a launch for every kernel of PTX modules whose launches nobody wrote
down (PTX collected from elsewhere), as manifest lines (test/corpus/README.md)
for variant_check: a differential check of the variants against the
original on the GPU, whatever the kernel computes.

  guess_launches.py ROOT > manifest.txt

Every .ptx under ROOT; module paths are relative to ROOT. The guess: 97
blocks of the kernel's .reqntid or .maxntid (else 128 threads), along the
first of x, y, z whose %ctaid the kernel reads (blocks that differ only in
a coordinate the kernel never reads do the same work, racing on the same
words: Rodinia's backprop reads only %ctaid.y), one block for a kernel that
never reads %ctaid, and one thread for one that never reads %tid
and names no block size (ZLUDA's single-thread instruction tests, say); each
64-bit parameter a 4 MiB buffer of small random words (pointers, mostly: a
kernel that takes a 64-bit integer or a pointer to pointers faults, or runs
long, and its line proves nothing); 32-bit integers 64, f32 1.5, f64 0.5;
16 KiB of dynamic shared memory where the module declares extern shared
arrays.
Kernels with other parameters (8- and 16-bit, structures by value) and
32-bit modules get no line. variant_check runs the original twice first, so
a kernel whose result is not reproducible under this guess is reported as
such, not as a wrong variant.
"""
import os
import re
import sys

ENTRY = re.compile(r"\.entry\s+([\w$]+)\s*\(([^)]*)\)([^{;]*)\{", re.S)
PARAM = re.compile(r"^\.param\s+(?:\.align\s+\d+\s+)?\.([a-z]+)(\d+)\b(.*)$", re.S)
NTID = re.compile(r"\.(reqntid|maxntid)\s+(\d+)(?:\s*,\s*(\d+))?(?:\s*,\s*(\d+))?")
COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


def param_arg(decl):
    """The manifest argument for one .entry parameter, or None."""
    m = PARAM.match(" ".join(decl.split()))
    if not m or "[" in m.group(3):
        return None
    kind, bits = m.group(1), int(m.group(2))
    if bits == 64 and kind in ("u", "b", "s"):
        return "inout:u32:1048576"
    if bits == 32 and kind in ("u", "b"):
        return "u32:64"
    if bits == 32 and kind == "s":
        return "i32:64"
    if bits == 32 and kind == "f":
        return "f32:1.5"
    if bits == 64 and kind == "f":
        return "f64:0.5"
    return None


def block_shape(directives):
    m = NTID.search(directives)
    if not m:
        return "128,1,1"
    dims = [int(d) if d else 1 for d in m.group(2, 3, 4)]
    if dims[0] * dims[1] * dims[2] > 1024:
        return None
    return ",".join(map(str, dims))


def body_of(text, open_brace):
    """The kernel body that starts at text[open_brace] == '{'."""
    depth = 0
    for i in range(open_brace, len(text)):
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        if depth == 0:
            return text[open_brace:i]
    return text[open_brace:]


def lines_for(root, path):
    text = COMMENT.sub("", open(path, encoding="utf-8", errors="replace").read())
    if re.search(r"\.address_size\s+32", text):
        return
    smem = 16384 if re.search(r"\.extern\s+\.shared", text) else 0
    rel = os.path.relpath(path, root)
    for m in ENTRY.finditer(text):
        params = [p for p in m.group(2).split(",") if p.strip()]
        args = [param_arg(p) for p in params]
        body = body_of(text, m.end() - 1)
        # What the kernel reads, its callees' reads included (a module that
        # reads it anywhere, when the kernel calls anything).
        def reads(register):
            return register in body or ("call" in body and register in text)
        grid = next((shape for axis, shape in
                     (("x", "97,1,1"), ("y", "1,97,1"), ("z", "1,1,97"))
                     if reads("%ctaid." + axis)), "1,1,1")
        block = block_shape(m.group(3))
        if not reads("%tid") and not NTID.search(m.group(3)):
            block = "1,1,1"
        if None in args or block is None:
            print(f"# {rel} {m.group(1)}: no guess for its parameters or block",
                  file=sys.stderr)
            continue
        yield " ".join([rel, m.group(1), grid, block, str(smem)] + args)


def main():
    root = sys.argv[1]
    for dirpath, _, files in sorted(os.walk(root)):
        for name in sorted(files):
            if name.endswith(".ptx"):
                for line in lines_for(root, os.path.join(dirpath, name)):
                    print(line)


if __name__ == "__main__":
    main()
