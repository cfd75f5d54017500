#!/usr/bin/env python3
"""Validate a Baton launch manifest against the PTX modules it names.

Usage: check-manifest.py CORPUS_DIR [MANIFEST...]
       (default manifest: CORPUS_DIR/manifest.txt; paths in a manifest are
       relative to the directory that holds it)

For every line `MODULE KERNEL GX,GY,GZ BX,BY,BZ DYN_SMEM PARAM...` it checks
that MODULE exists and defines `.entry KERNEL`, that the PARAM list has as
many entries as the .entry has parameters and each has the PTX parameter's
width (pointers and 64-bit scalars are 8 bytes, the rest 4), that the launch
shape is legal (<= 1024 threads per block, grid and block extents positive,
at most 227 KiB of shared memory) and that buffer kinds are well formed.
It also checks the converse for the nvcc/ and clang/ corpora: every .entry
of a module that has at least one manifest line must have a line itself, so
a kernel added to a launchable source without a `//@ launch` line is caught.

Standard library only; prints every error found and exits 1 if there
was any.
"""

import os
import re
import sys

SCALAR_BYTES = {"i32": 4, "u32": 4, "f32": 4, "i64": 8, "u64": 8, "f64": 8}
BUFFER_TYPES = {"f32", "f64", "i32", "u32", "u8", "i64", "f16", "bf16"}
ENTRY_RE = re.compile(r"\.entry\s+([A-Za-z_$%][\w$]*)\s*\(([^)]*)\)", re.S)
# `.param .u64 .ptr .align 1 name`, `.param .b32 name`, `.param .align 64 .b8 name[128]`
PARAM_RE = re.compile(r"\.param\s+(?:\.align\s+\d+\s+)?\.([a-z]+)(\d+)\b[^,]*?(?:\[(\d+)\])?\s*$")


def parse_entries(path):
    """Return {kernel: [param byte sizes]} for every .entry in a PTX file."""
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    # Drop comments so that commented-out signatures do not count.
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    entries = {}
    for m in ENTRY_RE.finditer(text):
        sizes = []
        for p in filter(None, (s.strip() for s in m.group(2).split(","))):
            pm = PARAM_RE.search(p)
            if not pm:
                raise ValueError(f"{path}: cannot parse parameter '{p}' of {m.group(1)}")
            width = int(pm.group(2)) // 8
            count = int(pm.group(3)) if pm.group(3) else 1
            sizes.append(width * count)
        entries[m.group(1)] = sizes
    return entries


def triple(s):
    parts = s.split(",")
    if len(parts) != 3:
        raise ValueError(f"expected X,Y,Z, got '{s}'")
    return [int(x) for x in parts]


def param_size(kind):
    """Byte size of one manifest PARAM in the kernel's parameter list."""
    fields = kind.split(":")
    if fields[0] in ("in", "out", "inout", "zero"):
        if len(fields) != 3 or fields[1] not in BUFFER_TYPES or int(fields[2]) <= 0:
            raise ValueError(f"bad buffer '{kind}'")
        return 8
    if len(fields) != 2 or fields[0] not in SCALAR_BYTES:
        raise ValueError(f"bad scalar '{kind}'")
    ty, value = fields
    if ty.startswith("f"):
        float(value)
    else:
        v = int(value, 0)
        lo = -(1 << 63) if ty == "i64" else -(1 << 31) if ty == "i32" else 0
        hi = (1 << 64) if ty == "u64" else (1 << 63) if ty == "i64" else (1 << 32) if ty == "u32" else (1 << 31)
        if not lo <= v < hi:
            raise ValueError(f"scalar '{kind}' out of range")
    return SCALAR_BYTES[ty]


def check(manifest):
    base = os.path.dirname(os.path.abspath(manifest))
    errors = []
    cache = {}
    seen = {}
    with open(manifest, encoding="utf-8") as f:
        lines = f.readlines()
    for no, line in enumerate(lines, 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        where = f"{manifest}:{no}"
        tok = line.split()
        if len(tok) < 5:
            errors.append(f"{where}: too few fields")
            continue
        module, kernel, grid, block, smem, params = tok[0], tok[1], tok[2], tok[3], tok[4], tok[5:]
        path = os.path.join(base, module)
        if module not in cache:
            cache[module] = parse_entries(path) if os.path.exists(path) else None
        entries = cache[module]
        if entries is None:
            errors.append(f"{where}: module {module} does not exist")
            continue
        if kernel not in entries:
            errors.append(f"{where}: no .entry {kernel} in {module}")
            continue
        seen.setdefault(module, set()).add(kernel)
        try:
            g, b, shm = triple(grid), triple(block), int(smem)
            if min(g) <= 0 or min(b) <= 0:
                raise ValueError("grid and block extents must be positive")
            if b[0] * b[1] * b[2] > 1024 or b[2] > 64:
                raise ValueError(f"illegal block {block}")
            if g[1] > 65535 or g[2] > 65535:
                raise ValueError(f"illegal grid {grid}")
            if not 0 <= shm <= 227 * 1024:
                raise ValueError(f"illegal dynamic shared memory {smem}")
            sizes = [param_size(p) for p in params]
        except ValueError as e:
            errors.append(f"{where}: {e}")
            continue
        want = entries[kernel]
        if sizes != want:
            errors.append(f"{where}: {kernel} params {params} have sizes {sizes}, "
                          f"PTX .entry has {want}")
    # Converse check: in a module that is launchable at all, every kernel is.
    for module, kernels in seen.items():
        missing = sorted(set(cache[module]) - kernels)
        if missing and module.split("/")[0] in ("nvcc", "clang", "nvcc-lineinfo", "clang-lineinfo"):
            errors.append(f"{manifest}: {module}: no launch line for {', '.join(missing)}")
    return errors, sum(len(k) for k in seen.values())


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    manifests = argv[2:] or [os.path.join(argv[1], "manifest.txt")]
    bad = False
    for m in manifests:
        errors, n = check(m)
        for e in errors:
            print(e, file=sys.stderr)
        if errors:
            bad = True
        else:
            print(f"check-manifest: {m}: {n} launch lines OK")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
