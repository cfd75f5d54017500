"""Which GEMM candidates Inductor's autotuning may choose from, by the
policy of baton.torch.enable(matmuls=...):

  * "triton": where a Triton template can do the op, ATen's kernel
    (cuBLAS, cuDNN) is not a candidate, so the op runs as a Triton kernel
    that gets variants; where none can, ATen's stays (the op then bypasses
    Baton, and report() lists it).
  * "long": the same for products expected to take at least `long_us`
    (BATON_TORCH_LONG_GEMM_US, 300 us) in the library, whose launches
    would hold latency-critical work back longest; shorter ones keep every
    candidate and the fastest wins (often cuBLAS, which bypasses Baton).
  * None ("library", or nothing enabled): every candidate.

A product's time in the library is its FLOPs over the rate the library
reaches on a large product of the same dtype on this GPU, measured once
per dtype. Products whose shape or rate is not known count as long.
Inductor's caches know neither the policy's threshold nor its decisions:
a graph found there was compiled under the threshold of its first
compile, and is judged again only when compiled again.

`prefer` is installed once as Inductor's autotuning preprocessing
(select_algorithm.add_preprocessing_fn, which has no way to remove it);
`policy` says what it does.
"""

from __future__ import annotations

import contextlib
import math
import os
from typing import Any, Optional

from . import _core
from . import triton as _bt

POLICIES = ("triton", "long", "library")
DEFAULT_LONG_US = 300.0

policy: Optional[str] = None
long_us = DEFAULT_LONG_US
# Under "long": per product shape judged (outputs, inner dimension, dtype),
# its expected library time in us (None: unknown) and whether only Triton
# templates stayed candidates (where one can do the op).
decisions: dict = {}
_rates: dict = {}


def long_us_from_environment() -> float:
    """BATON_TORCH_LONG_GEMM_US, or the default; ValueError if it is not
    a number of microseconds >= 0."""
    text = os.environ.get("BATON_TORCH_LONG_GEMM_US")
    if not text:
        return DEFAULT_LONG_US
    try:
        us = float(text)
    except ValueError:
        us = -1.0
    if not us >= 0:
        raise ValueError(f"BATON_TORCH_LONG_GEMM_US must be a number of "
                         f"microseconds >= 0, not {text!r}")
    return us


def configure(matmuls: Optional[str]) -> None:
    """Sets the policy, one of POLICIES as baton.torch checked it, or None
    (None or "library": every candidate), and, for "long", the threshold
    (long_us_from_environment)."""
    global policy, long_us
    if matmuls == "long":
        long_us = long_us_from_environment()
    policy = None if matmuls == "library" else matmuls


def prefer(choices):
    """Inductor autotuning preprocessing: the candidates the policy
    allows for one op."""
    if policy not in ("triton", "long"):
        return choices
    try:
        from torch._inductor.select_algorithm import ExternKernelCaller
    except ImportError:
        return choices
    if policy == "long" and not _long(choices):
        return choices
    kept = [c for c in choices if not isinstance(c, ExternKernelCaller)]
    return kept if kept else choices


def _long(choices) -> bool:
    shape = next(filter(None, map(product_shape, choices)), None)
    if shape is None:
        return True
    outputs, inner, dtype = shape
    rate = library_rate(dtype)
    us = 2.0 * outputs * inner / rate * 1e6 if rate else None
    is_long = us is None or us >= long_us
    decisions[(outputs, inner, str(dtype))] = (us, is_long)
    return is_long


def report() -> list:
    """decisions, as report() lists them."""
    return [{"outputs": o, "inner": k, "dtype": d, "library_us": us,
             "triton_only": t} for (o, k, d), (us, t) in decisions.items()]


def _sizes(sizes) -> Optional[list]:
    out = []
    for s in sizes:
        try:
            out.append(int(s))
        except TypeError:  # symbolic: Inductor's hint for it
            try:
                from torch._inductor.virtualized import V
                out.append(int(V.graph.sizevars.size_hint(s)))
            except Exception:
                return None
    return out


def product_shape(choice) -> Optional[tuple]:
    """(output elements, inner dimension, input dtype) of the product a
    candidate computes: its inputs end with A [..., M, K] and B [..., K, N]
    and its output is [..., M, N] (mm, addmm, bmm); None for anything else
    (a convolution)."""
    try:
        a, b = choice.input_nodes[-2], choice.input_nodes[-1]
        out = _sizes(choice.layout.size)
        sa, sb = _sizes(a.get_size()), _sizes(b.get_size())
        dtype = a.get_dtype()
    except Exception:  # not a product's inputs (e.g. get_size unsupported)
        return None
    if out is None or sa is None or sb is None:
        return None
    if not (len(out) in (2, 3) and len(sa) == len(sb) == len(out)):
        return None
    if sa[-1] != sb[-2] or out[-2] != sa[-2] or out[-1] != sb[-1]:
        return None
    return math.prod(out), sa[-1], dtype


def library_rate(dtype: Any) -> Optional[float]:
    """FLOP/s of the library's product of two 4096 x 4096 matrices of
    `dtype` on the current GPU (measured on first use); None where it
    cannot be measured (a dtype torch.mm does not take)."""
    if dtype not in _rates:
        _rates[dtype] = _measure_rate(dtype)
    return _rates[dtype]


def _measure_rate(dtype: Any) -> Optional[float]:
    # Real tensors even inside a compile's fake-tensor tracing, and no
    # random numbers: the job's random stream must not move. A thread's
    # first cuBLAS call may load modules, which must not happen next to
    # paused routed work (baton.torch._warm_up_libraries says why): held
    # as a module load is, where the scheduler runs.
    hold = 0
    try:
        import torch
        try:
            from torch._subclasses.fake_tensor import unset_fake_temporarily
        except ImportError:
            unset_fake_temporarily = contextlib.nullcontext
        if _core.HAS_RUNTIME and _core.router_running():
            hold = _core.hold_for_load(_bt._STATE.load_patience_us)
        n, reps = 4096, 5
        with unset_fake_temporarily():
            a = torch.full((n, n), 0.5, device="cuda").to(dtype)
            b = torch.full((n, n), 0.25, device="cuda").to(dtype)
            for _ in range(2):
                torch.mm(a, b)
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(reps):
                torch.mm(a, b)
            end.record()
            end.synchronize()
            seconds = start.elapsed_time(end) / 1e3
        return 2.0 * n ** 3 * reps / seconds if seconds > 0 else None
    except Exception:
        return None
    finally:
        if hold:
            _core.release_hold(hold)
