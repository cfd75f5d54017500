"""Baton: preemptible GPU kernels for best-effort work next to
latency-critical work.

This package is the Python side of Baton:

  baton.transform_ptx(ptx)   the PTX transform of `baton-ptx`, in-process,
                             cached on disk by content
  baton.triton               Triton integration: variants for every kernel
                             Triton loads, launches routed to the scheduler
  baton.torch                PyTorch: baton.torch.enable(priority=...)

`import baton` needs neither torch nor triton; the submodules import them
when used. See docs/torch.md.
"""

from . import _core
from ._cache import Cache, content_key, default_cache_dir
from ._transform import (KernelReport, PtxError, Refusal, TransformResult,
                         transform_ptx, transformer_id)

__version__ = "0.1.0"

SLICE_SUFFIX = _core.SLICE_SUFFIX
PTB_SUFFIX = _core.PTB_SUFFIX
HAS_RUNTIME = _core.HAS_RUNTIME

__all__ = ["transform_ptx", "TransformResult", "KernelReport", "Refusal",
           "PtxError", "Cache", "default_cache_dir", "content_key",
           "transformer_id", "SLICE_SUFFIX", "PTB_SUFFIX", "HAS_RUNTIME"]
