#!/usr/bin/env python3
"""GPU correctness test of baton.torch over the kinds of kernel Inductor
writes that the training checks do not reach.

check_training.py trains six models; their kernels are pointwise, per-row
reductions and GEMM templates. Inductor writes many other kinds: scans,
sorts, Welford reductions over rows and over columns, split reductions of
one large tensor, kernels tiled over two and three grid dimensions, gathers
and scatters, integer atomics, random numbers, combo kernels of foreach
ops, batched and integer GEMM templates. Each case here compiles one such
function (forward and, where it has one, backward) and runs it four times
from the same inputs, in one process:

  1. twice with nothing routed (schedule="never"): if the two differ, the
     function is not deterministic here and the case proves nothing;
  2. with every best-effort Triton launch routed (schedule="always"),
     running as a PTB or slice variant;
  3. routed again while another thread opens and closes latency-critical
     brackets every few hundred microseconds, so that routed kernels are
     paused and resumed mid-flight.

Outputs and gradients must be identical, bit for bit (NaNs included),
across all four. A kernel the transform refuses runs as its original and
is listed with the reason; a case in which nothing was routed says so.

  python3 bench/torch/check_ops.py [--cases NAME,...] [--out DIR]
                                   [--budget 420] [--case-timeout 150]

Exit status: 0 if every case that ran passed or routed nothing; 1 if a
case differed, raised once routed, or hung (every thread's stack is then
printed); 2 if no case routed anything, or a routed launch ran as the
original; 77 without a GPU. A case that
fails with nothing routed (an op this PyTorch or GPU lacks) is skipped,
saying why. Needs PYTHONPATH with the
built package (bench/torch/run.sh sets it).
"""

import argparse
import faulthandler
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

# check_training's settings before CUDA starts (deterministic cuBLAS, eager
# module loading, every Triton kernel routed however short and run as a
# variant), and its storm.
from check_training import Storm  # noqa: E402

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import baton.torch  # noqa: E402
import baton.triton  # noqa: E402
from baton import _core  # noqa: E402

import workloads  # noqa: E402


def log(msg):
    print(f"[ops {time.strftime('%H:%M:%S')}] {msg}", flush=True)


# ------------------------------------------------------------------ cases

def rand(*shape, dtype=torch.float32, gen):
    return torch.randn(*shape, generator=gen, device="cuda").to(dtype)


def adam_foreach(ps, gs, ms, vs):
    """One Adam-like update of a list of tensors through foreach ops:
    Inductor writes combo kernels that pick their tensor from the block
    index."""
    ms = torch._foreach_add(torch._foreach_mul(ms, 0.9),
                            torch._foreach_mul(gs, 0.1))
    vs = torch._foreach_add(torch._foreach_mul(vs, 0.999),
                            torch._foreach_mul(torch._foreach_mul(gs, gs),
                                               0.001))
    step = torch._foreach_div(ms, torch._foreach_add(torch._foreach_sqrt(vs),
                                                     1e-8))
    return torch._foreach_sub(ps, torch._foreach_mul(step, 1e-3)) + ms + vs


def int_scatter_add(idx, vals):
    """Integer atomics: a block that ran twice, or not at all, changes the
    sums. int32: Inductor leaves 64-bit atomic adds to ATen."""
    out = torch.zeros(1031, dtype=torch.int32, device=idx.device)
    return out.index_add(0, idx, vals)


def scaled_mm(a, b, sa, sb):
    return torch._scaled_mm(a, b.t(), scale_a=sa, scale_b=sb,
                            out_dtype=torch.bfloat16)


def make_cases():
    """name -> (function, inputs builder, differentiable). Shapes are not
    multiples of block sizes, so masks and early returns are exercised;
    the inputs are made once per case from a seeded generator."""
    def ints(lo, hi, *shape, dtype=torch.int32):
        return lambda g: torch.randint(lo, hi, shape, generator=g,
                                       device="cuda", dtype=dtype)

    def perm_rows(rows, cols):
        def build(g):
            keys = torch.rand(rows, cols, generator=g, device="cuda")
            return keys.argsort(dim=1)
        return build

    def fp8(rows, cols):
        return lambda g: rand(rows, cols, gen=g).to(torch.float8_e4m3fn)

    def one():
        return lambda g: torch.tensor(1.0, device="cuda")

    R = lambda *shape, dtype=torch.float32: (  # noqa: E731
        lambda g: rand(*shape, dtype=dtype, gen=g))
    return {
        "cumsum": (lambda x: torch.cumsum(x, dim=-1), [R(96, 1500)], True),
        "logcumsumexp": (lambda x: torch.logcumsumexp(x, dim=1),
                         [R(64, 700)], False),
        "sort": (lambda x: torch.sort(x, dim=-1, stable=True),
                 [R(256, 128)], False),
        "topk": (lambda x: torch.topk(x, 16, dim=-1), [R(512, 200)], False),
        "arg-reductions": (lambda x: (x.argmax(-1), x.amin(0), x.argmin(0)),
                           [R(300, 777)], False),
        "var-mean-rows": (lambda x: torch.var_mean(x, dim=-1), [R(200, 6000)],
                          True),
        "var-mean-cols": (lambda x: torch.var_mean(x, dim=0), [R(6000, 200)],
                          True),
        "split-reduction": (lambda x: (x.sum(), x.abs().amax(),
                                       (x * x).mean()),
                            [R(8_000_003)], True),
        "prod-any-all": (lambda x: (x.prod(-1), (x > 0.9).any(-1),
                                    (x > -2).all(0)), [R(333, 41)], False),
        "softmax": (lambda x: (F.softmax(x, -1), F.log_softmax(x * 0.5, -1)),
                    [R(512, 3000)], True),
        "masked-softmax": (
            lambda x: x.masked_fill(x > 0.3, float("-inf")).softmax(-1),
            [R(257, 5)], False),
        "cross-entropy": (
            lambda x, t: F.cross_entropy(x, t, label_smoothing=0.1),
            [R(1024, 5000), ints(0, 5000, 1024, dtype=torch.int64)], True),
        "rms-norm": (
            lambda x, w: x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True)
                                         + 1e-6) * w,
            [R(4000, 768, dtype=torch.bfloat16), R(768, dtype=torch.bfloat16)],
            True),
        "norms": (
            lambda x, w, b: (F.group_norm(x, 8, w, b),
                             F.batch_norm(x, None, None, w, b, training=True)),
            [R(16, 64, 30, 30), R(64), R(64)], True),
        "pooling": (lambda x: (F.max_pool2d(x, 3, 2, 1), F.avg_pool2d(x, 2),
                               F.adaptive_avg_pool2d(x, 5)),
                    [R(8, 32, 57, 57)], True),
        "interpolate": (lambda x: F.interpolate(x, scale_factor=1.7,
                                                mode="bilinear"),
                        [R(4, 16, 45, 61)], False),
        "tiled-transpose": (lambda x: x.permute(0, 2, 3, 1).contiguous() * 2
                            + 1, [R(8, 96, 67, 71)], True),
        "tall-transpose": (lambda x: x.t().contiguous() + 1,
                           [R(70001, 130, dtype=torch.float16)], False),
        "gather-scatter": (
            lambda x, i: (x.gather(1, i),
                          torch.zeros_like(x).scatter(1, i, x * 3)),
            [R(300, 257), perm_rows(300, 257)], False),
        "embedding": (lambda i, w: F.embedding(i, w) * 2,
                      [ints(0, 10007, 64, 33, dtype=torch.int64),
                       R(10007, 96)], False),
        # Compiled with deterministic algorithms off (below): with them on,
        # index_add is not a Triton kernel. Integer sums do not depend on
        # the order of the atomics.
        "int-atomics": (int_scatter_add,
                        [ints(0, 1031, 300_001, dtype=torch.int64),
                         ints(-50, 50, 300_001)], False),
        "integer-ops": (lambda a, b: (a // 7, a % 5, a ^ b, a >> 2,
                                      (a * b).to(torch.int64).cumsum(0)),
                        [ints(-1000, 1000, 10_007), ints(0, 1 << 20, 10_007)],
                        False),
        "cat-pad": (lambda x, y: torch.cat([F.pad(x, (1, 2, 3, 4)), y], 1),
                    [R(6, 5, 40, 37), R(6, 3, 47, 40)], True),
        "dropout": (lambda x: F.dropout(x, 0.3, training=True) * 2,
                    [R(1000, 999)], False),
        "foreach-adam": (adam_foreach,
                         [[R(s) for s in (1000, 77, 4096, 3, 60_000)]
                          for _ in range(4)], False),
        "bmm": (lambda a, b: torch.relu(torch.bmm(a, b)),
                [R(12, 384, 320, dtype=torch.bfloat16),
                 R(12, 320, 448, dtype=torch.bfloat16)], True),
        "int-mm": (torch._int_mm,
                   [ints(-100, 100, 256, 512, dtype=torch.int8),
                    ints(-100, 100, 512, 384, dtype=torch.int8)], False),
        "fp8-scaled-mm": (scaled_mm, [fp8(256, 512), fp8(384, 512), one(),
                                      one()], False),
        "one-block": (lambda x: x * 2 + 1, [R(7)], False),
        "many-blocks": (lambda x: torch.sin(x) * 0.5,
                        [R(120_000_001, dtype=torch.float16)], False),
    }


# ---------------------------------------------------------------- running

def materialize(spec, gen):
    """The case's inputs: builders called in order with one generator."""
    out = []
    for s in spec:
        out.append([b(gen) for b in s] if isinstance(s, list) else s(gen))
    return out


def fresh(inputs, grad):
    """A copy of the inputs for one run; floating tensors require grad in
    a differentiable case."""
    def one(t):
        c = t.detach().clone()
        if grad and c.is_floating_point() and c.dim() > 0:
            c.requires_grad_(True)
        return c
    return [[one(t) for t in x] if isinstance(x, list) else one(x)
            for x in inputs]


def flatten(out):
    """The tensors of a result: sort's and topk's named tuples are tuples."""
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in flatten(o)]
    return [out]


def cotangent(t):
    """A fixed, non-uniform gradient for an output (no generator: the same
    in every run)."""
    n = torch.arange(t.numel(), device=t.device) % 7 - 3
    return n.reshape(t.shape).to(t.dtype)


class NotCompiled(Exception):
    """torch.compile (or the op itself) failed with nothing routed: this
    PyTorch or GPU cannot run the case, which says nothing of Baton."""


def run_once(fn, inputs, grad, first=False):
    """The outputs, then the gradients, of one run. The first run compiles:
    an exception there (torch's own) is NotCompiled."""
    args = fresh(inputs, grad)
    torch.manual_seed(1234)  # dropout's seed
    try:
        outs = flatten(fn(*args))
        diff = [o for o in outs if grad and o.requires_grad]
        if diff:
            torch.autograd.backward(diff, [cotangent(o) for o in diff])
    except Exception as e:
        if not first:
            raise
        text = str(e).strip()
        first_line = text.splitlines()[0][:160] if text else ""
        raise NotCompiled(f"{type(e).__name__}: {first_line}") from e
    results = [o.detach() for o in outs]
    if grad:
        leaves = [t for a in args for t in (a if isinstance(a, list) else [a])]
        results += [t.grad for t in leaves if t.grad is not None]
    if _core.router_running():
        _core.synchronize()
    torch.cuda.synchronize()
    return [r.clone() for r in results]


def same_bits(a, b):
    """Bitwise equality, NaNs included."""
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if x.shape != y.shape or x.dtype != y.dtype:
            return False
        if not torch.equal(x.contiguous().view(-1).view(torch.uint8),
                           y.contiguous().view(-1).view(torch.uint8)):
            return False
    return True


# Cases whose kernels must not be chosen under deterministic algorithms.
ORDER_FREE = {"int-atomics"}


def check_case(name, case, args):
    torch.use_deterministic_algorithms(name not in ORDER_FREE, warn_only=True)
    fn, spec, grad = case
    gen = torch.Generator(device="cuda").manual_seed(len(name))
    inputs = materialize(spec, gen)
    torch._dynamo.reset()
    compiled = torch.compile(fn)
    baton.torch.set_schedule("never")
    t = time.time()
    run_once(compiled, inputs, grad, first=True)  # compiles, autotunes
    compile_s = time.time() - t
    since = time.monotonic()
    reference = run_once(compiled, inputs, grad)
    deterministic = same_bits(run_once(compiled, inputs, grad), reference)
    ready = baton.triton.prepare_loaded(wait=True, timeout=args.case_timeout,
                                        launched_since=since)
    phases = {}
    for phase in ("routed", "preempted"):
        baton.torch.set_schedule("always")
        before = _core.stats()
        if phase == "preempted":
            with Storm():  # eight runs: more launches caught mid-flight
                same = all(same_bits(run_once(compiled, inputs, grad),
                                     reference) for _ in range(8))
        else:
            same = same_bits(run_once(compiled, inputs, grad), reference)
        after = _core.stats()
        baton.torch.set_schedule("never")
        phases[phase] = {"same": same,
                         "routed": after["best_effort"] - before["best_effort"],
                         "originals": after["originals"] - before["originals"],
                         "pauses": after["pauses"] - before["pauses"]}
    kernels = baton.torch.report(launched_since=since)["kernels"]
    return {"compile_s": round(compile_s, 1), "deterministic": deterministic,
            "ready": ready, "phases": phases, "kernels": kernels}


def verdict(result):
    p = result["phases"]
    if not result["deterministic"]:
        return "INCONCLUSIVE (two runs with nothing routed differ)"
    if not (p["routed"]["same"] and p["preempted"]["same"]):
        return "FAIL"
    if p["routed"]["routed"] == 0:
        return "NOT ROUTED"
    # check_training's settings: every routed launch is a variant.
    originals = p["routed"]["originals"] + p["preempted"]["originals"]
    if originals:
        return f"NOT EXERCISED ({originals} routed launches ran as originals)"
    return "PASS"


def describe(name, result):
    p = result["phases"]
    line = (f"{name}: {verdict(result)}: {p['routed']['routed']} launches "
            f"routed ({p['routed']['originals']} as originals), "
            f"{p['preempted']['pauses']} pauses in the preempted run; "
            f"routed {'==' if p['routed']['same'] else '!='} reference, "
            f"preempted {'==' if p['preempted']['same'] else '!='} reference")
    if not result["kernels"]:
        line += "\n    no Triton kernel launched (ATen's own kernels ran)"
    kept = [k for k in result["kernels"]
            if k["state"] != "ready" or not k["scheduled"]]
    for k in kept:
        why = k["reason"] or "; ".join(k["refusals"][:2]) or k["state"]
        line += f"\n    not routed: {k['name'][:60]} ({why})"
    return line


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--cases", default="",
                   help="comma-separated names (default: all)")
    p.add_argument("--out", default=os.environ.get("OUT", "."))
    p.add_argument("--budget", type=float, default=420,
                   help="seconds: no case is started after this")
    p.add_argument("--case-timeout", type=float, default=150,
                   help="seconds: a case that takes longer has hung; every "
                   "thread's stack is printed and the run fails")
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    if not torch.cuda.is_available():
        print("SKIPPED: no CUDA device", flush=True)
        return 77
    cases = make_cases()
    names = [n for n in args.cases.split(",") if n] or list(cases)
    unknown = [n for n in names if n not in cases]
    if unknown:
        p.error(f"unknown cases {unknown}; known: {', '.join(cases)}")
    workloads.deterministic()
    # The registry of processes sharing the GPU stays on, as by default:
    # routed launches then take the path of such a process (every run on a
    # private stream), which check_training.py, with BATON_SHARE=0, does
    # not take.
    baton.torch.enable("best-effort", schedule="never")
    log(f"torch {torch.__version__}, triton "
        f"{__import__('triton').__version__}, {torch.cuda.get_device_name()}")
    results, summary, status = {}, [], 0
    start = time.time()
    for name in names:
        if time.time() - start > args.budget:
            summary.append(f"{name}: NOT RUN (past the {args.budget:.0f} s "
                           "budget)")
            continue
        log(f"{name}: start")
        faulthandler.dump_traceback_later(args.case_timeout, exit=True)
        try:
            result = check_case(name, cases[name], args)
        except NotCompiled as e:
            summary.append(f"{name}: SKIPPED (does not run here with nothing "
                           f"routed: {e})")
            log(summary[-1])
            continue
        except Exception as e:  # Baton's part failed: keep checking the rest
            import traceback
            traceback.print_exc()
            summary.append(f"{name}: ERROR {type(e).__name__}: {e}")
            status = 1
            continue
        finally:
            faulthandler.cancel_dump_traceback_later()
        results[name] = result
        summary.append(describe(name, result))
        log(summary[-1])
        outcome = verdict(result)
        if outcome == "FAIL":
            status = 1
        elif outcome.startswith("NOT EXERCISED") and status == 0:
            status = 2
    with open(os.path.join(args.out, "check-ops.json"), "w") as f:
        json.dump(results, f, indent=1, default=str)
    routed_cases = sum(1 for r in results.values()
                       if r["phases"]["routed"]["routed"] > 0)
    passed = sum(1 for r in results.values() if verdict(r) == "PASS")
    kernels = [k for r in results.values() for k in r["kernels"]]
    routed_kernels = sum(1 for k in kernels if k["scheduled"])
    pauses = sum(r["phases"]["preempted"]["pauses"] for r in results.values())
    print("\n==== check_ops summary ====")
    for line in summary:
        print(line)
    print(f"{passed} of {len(names)} cases passed; {routed_kernels} of "
          f"{len(kernels)} Triton kernels routed, {pauses} pauses in the "
          "preempted runs")
    if status == 0 and routed_cases == 0:
        status = 2
    return status


if __name__ == "__main__":
    sys.exit(main())
