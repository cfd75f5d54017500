#!/usr/bin/env python3
"""Smoke-run a Baton launch manifest on a GPU (CUDA driver API via ctypes).

Usage: smoke-run.py MANIFEST [FILTER]

For every manifest line (optionally only those whose module or kernel
contains FILTER) this loads the module, fills `in`/`inout` buffers with
deterministic pseudo-random data, poisons `out` buffers (0xFF bytes), clears
`zero` buffers, launches the kernel twice from identical inputs and reports:
launch errors, the kernel time, whether the two runs produced bitwise
identical buffers, and whether at least one output buffer was written at
all. Outputs of the same kernel built by different compilers are compared
too (informational: float contraction may legitimately differ).

This is a corpus sanity check, not Baton's GPU test harness: it only proves
that each manifest line is launchable, deterministic and cheap. Needs only
Python 3 and libcuda; numpy is used for fast data generation when present.
"""

import ctypes
import hashlib
import os
import struct
import sys
import time

try:
    import numpy as np
except ImportError:  # pragma: no cover
    np = None

ELEM = {"f32": 4, "f64": 8, "i32": 4, "u32": 4, "u8": 1, "i64": 8, "f16": 2, "bf16": 2}
# Buffer parameters the kernel may write (compared after each run), and all.
WRITTEN = ("out", "inout", "zero")
BUFFERS = ("in",) + WRITTEN

cuda = ctypes.CDLL("libcuda.so.1")


def ck(res, what):
    if res != 0:
        name = ctypes.c_char_p()
        cuda.cuGetErrorName(res, ctypes.byref(name))
        raise RuntimeError(f"{what}: {name.value.decode() if name.value else res}")


def fill(ty, n, seed):
    """Deterministic finite data of small magnitude, as raw bytes."""
    if np is not None:
        rng = np.random.default_rng(seed)
        if ty in ("f32", "f64", "f16"):
            return rng.uniform(-1, 1, n).astype({"f32": np.float32, "f64": np.float64, "f16": np.float16}[ty]).tobytes()
        if ty == "bf16":
            f = rng.uniform(-1, 1, n).astype(np.float32)
            return (f.view(np.uint32) >> 16).astype(np.uint16).tobytes()
        if ty == "u8":
            return rng.integers(0, 256, n, dtype=np.uint8).tobytes()
        if ty in ("i32", "i64"):
            return rng.integers(-1000, 1000, n).astype(np.int32 if ty == "i32" else np.int64).tobytes()
        if ty == "u32":
            return rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32).tobytes()
    import random
    r = random.Random(seed)
    if ty in ("f32", "f64"):
        return struct.pack(f"<{n}{'f' if ty == 'f32' else 'd'}", *(r.uniform(-1, 1) for _ in range(n)))
    if ty == "f16":
        return struct.pack(f"<{n}e", *(r.uniform(-1, 1) for _ in range(n)))
    if ty == "bf16":
        return b"".join(struct.pack("<f", r.uniform(-1, 1))[2:] for _ in range(n))
    if ty == "u8":
        return bytes(r.randrange(256) for _ in range(n))
    if ty == "u32":
        return struct.pack(f"<{n}I", *(r.getrandbits(32) for _ in range(n)))
    return struct.pack(f"<{n}{'i' if ty == 'i32' else 'q'}", *(r.randrange(-1000, 1000) for _ in range(n)))


def scalar(kind, value):
    if kind == "f32":
        return ctypes.c_float(float(value))
    if kind == "f64":
        return ctypes.c_double(float(value))
    v = int(value, 0)
    return {"i32": ctypes.c_int32, "u32": ctypes.c_uint32, "i64": ctypes.c_int64, "u64": ctypes.c_uint64}[kind](v)


def run_line(base, tok, modules):
    module, kernel = tok[0], tok[1]
    g = [int(x) for x in tok[2].split(",")]
    b = [int(x) for x in tok[3].split(",")]
    smem = int(tok[4])
    if module not in modules:
        with open(os.path.join(base, module), "rb") as f:
            image = f.read() + b"\0"
        mod = ctypes.c_void_p()
        ck(cuda.cuModuleLoadData(ctypes.byref(mod), image), f"load {module}")
        modules[module] = mod
    fn = ctypes.c_void_p()
    ck(cuda.cuModuleGetFunction(ctypes.byref(fn), modules[module], kernel.encode()), f"get {kernel}")
    if smem > 48 * 1024:
        ck(cuda.cuFuncSetAttribute(fn, 8, smem), "max dynamic smem")  # CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES

    bufs, inits, outs = [], [], []
    for i, p in enumerate(tok[5:]):
        f = p.split(":")
        if f[0] in BUFFERS:
            nbytes = ELEM[f[1]] * int(f[2])
            ptr = ctypes.c_uint64()
            ck(cuda.cuMemAlloc_v2(ctypes.byref(ptr), nbytes), "alloc")
            init = (b"\xff" * nbytes if f[0] == "out" else bytes(nbytes) if f[0] == "zero"
                    else fill(f[1], int(f[2]), 1000 + i))
            bufs.append((f[0], ptr, nbytes))
            inits.append(init)
        else:
            bufs.append(("scalar", scalar(f[0], f[1]), 0))
            inits.append(None)

    def once():
        for (kind, ptr, nbytes), init in zip(bufs, inits):
            if kind != "scalar":
                ck(cuda.cuMemcpyHtoD_v2(ptr, init, nbytes), "h2d")
        args = [ctypes.byref(p) for (_, p, _) in bufs]
        argv = (ctypes.c_void_p * max(1, len(args)))(*[ctypes.cast(a, ctypes.c_void_p) for a in args])
        ck(cuda.cuCtxSynchronize(), "sync")
        t0 = time.perf_counter()
        ck(cuda.cuLaunchKernel(fn, g[0], g[1], g[2], b[0], b[1], b[2], smem, None, argv, None), "launch")
        ck(cuda.cuCtxSynchronize(), f"run {kernel}")
        dt = time.perf_counter() - t0
        result = []
        for kind, ptr, nbytes in bufs:
            if kind in WRITTEN:
                host = ctypes.create_string_buffer(nbytes)
                ck(cuda.cuMemcpyDtoH_v2(host, ptr, nbytes), "d2h")
                result.append(host.raw)
        return dt, result

    once()  # warm-up (module load, first-touch)
    t1, r1 = once()
    t2, r2 = once()
    for kind, ptr, _ in bufs:
        if kind != "scalar":
            cuda.cuMemFree_v2(ptr)
    out_inits = [i for (k, _, _), i in zip(bufs, inits) if k in WRITTEN]
    written = any(r != i for r, i in zip(r1, out_inits))
    digest = hashlib.sha256(b"".join(r1)).hexdigest()[:16]
    return min(t1, t2), r1 == r2, written, digest


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    manifest = argv[1]
    filt = argv[2] if len(argv) > 2 else None
    base = os.path.dirname(os.path.abspath(manifest))
    ck(cuda.cuInit(0), "init")
    dev = ctypes.c_int()
    ck(cuda.cuDeviceGet(ctypes.byref(dev), 0), "device")
    ctx = ctypes.c_void_p()
    ck(cuda.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), "ctx")
    ck(cuda.cuCtxSetCurrent(ctx), "ctx current")
    modules, digests, bad = {}, {}, 0
    for line in open(manifest, encoding="utf-8"):
        tok = line.split()
        if not tok or tok[0].startswith("#"):
            continue
        if filt and filt not in tok[0] and filt not in tok[1]:
            continue
        try:
            dt, same, written, digest = run_line(base, tok, modules)
        except Exception as e:  # keep going: report every line
            print(f"FAIL  {tok[0]:32} {tok[1]:34} {e}", flush=True)
            bad += 1
            if "run " in str(e):  # a faulting kernel poisons the context
                return 1
            continue
        status = "ok" if same and written and dt < 0.005 else "WARN"
        bad += status != "ok"
        digests.setdefault(tok[1], {})[tok[0].split("/")[0]] = digest
        print(f"{status:5} {tok[0]:32} {tok[1]:34} {dt * 1e3:7.3f} ms  "
              f"{'deterministic' if same else 'NONDETERMINISTIC'}  {'written' if written else 'NOTHING-WRITTEN'}  {digest}",
              flush=True)
    for kernel, by in sorted(digests.items()):
        if len(set(by.values())) > 1:
            print(f"note  {kernel}: outputs differ between builds {sorted(by)}")
    print(f"smoke-run: {bad} problem(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
