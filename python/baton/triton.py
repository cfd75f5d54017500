"""Triton integration: Baton variants for the kernels Triton loads, and
best-effort launches handed to the scheduler.

Triton 3.6's own extension points, nothing patched:

  * `triton.runtime.driver.active.launcher_cls`: every CompiledKernel makes
    its launcher from it when it is first loaded. install() puts
    BatonLauncher there; it wraps Triton's CudaLauncher and decides per
    launch: pass it to Triton's launcher unchanged, or pack the arguments
    and submit the launch to the scheduler (baton._core.submit), which runs
    the kernel's PTB (or slice) variant on the same stream, pausing it while
    latency-critical work runs.
  * `triton.knobs.runtime.kernel_load_end_hook`: remembers, per CUfunction,
    the kernel's name and the files of its Triton cache entry (its PTX).
  * `triton.knobs.runtime.kernel_load_start_hook`: before Triton loads a
    module, holds routed launches back once none is left on the device (a
    load made while one waits paused never returns); the end hook, or the
    thread's next launch, lets them go again.
  * `triton.knobs.runtime.add_stages_inspection_hook` (install(
    compile_hook=True)): wraps the "ptx" stage so that the PTX Triton
    assembles already holds the variants (the original kernel unchanged
    under its name); Triton's ptxas then builds one cubin with all three.
  * `triton.knobs.runtime.kernel_unload_hook` (Triton 3.8 and later): what
    is known of a kernel is dropped before Triton unloads its module, since
    a later load may reuse its CUfunction handle (Router.h, epochs).

Where the variants come from. A kernel whose cubin already has them (the
compile hook ran) is bound to them. Otherwise, the first time the kernel
would be routed, its PTX goes through the transform (cached on disk by
content) and Triton's ptxas, with the options Triton used, into a cubin of
Baton's own (cached too), which the router loads beside Triton's module.
On this path the variants get a `.maxnreg` that keeps the original's
occupancy, from the registers the loaded original uses (its block size and
shared memory are in Triton's metadata); BATON_FIT_REGISTERS=0 turns that
off. Variants made by the compile hook get none: the original has not been
assembled when its PTX is transformed.
This is the usual path under torch.compile: Inductor compiles in worker
processes where no hook of this process runs, and Triton and Inductor cache
cubins under keys that know nothing of Baton. Preparation runs on a thread
pool; until a kernel's variants are ready its launches pass through.

Which launches are routed: see set_routing() and set_thread_class().
While routing is on, best-effort launches first wait on the host while a
latency-critical bracket is open (baton._core.be_gate), and kernels
shorter than BATON_ROUTE_MIN_US (timed on their first routed launches) run
as originals. A launch is never routed (it passes through, counted in report()) when the
kernel has no variants (refused, or no PTX kept), uses thread-block
clusters, a cooperative grid or programmatic dependent launch, runs on a
device other than 0, or its arguments do not pack into the kernel's
parameters.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from pathlib import Path
from typing import Any, Optional

from . import _core
from ._cache import Cache, content_key
from ._pack import ArgPacker, PackError
from ._transform import default_cache, transform_ptx, transformer_id

__all__ = ["install", "uninstall", "installed", "set_routing",
           "set_thread_class", "BEST_EFFORT", "LATENCY_CRITICAL",
           "prepare_loaded", "kernels", "BatonLauncher", "stage_hook",
           "assemble"]

BEST_EFFORT = 0
LATENCY_CRITICAL = 1

_now = time.monotonic

# Kernel states.
_PENDING, _READY, _NONE = "pending", "ready", "none"


def _warn(msg: str) -> None:
    print(f"baton: {msg}", file=sys.stderr, flush=True)


@dataclasses.dataclass
class _Loaded:
    name: str
    files: dict          # Triton's metadata_group: file name -> path
    hash: str


@dataclasses.dataclass
class _Kernel:
    """What is known about one loaded kernel (one CUfunction)."""
    name: str
    state: str = _PENDING
    source: str = ""                 # "triton-cubin" / "baton-cubin"
    variants: tuple = ()
    refusals: tuple = ()
    reason: str = ""                 # why it is not routed
    features: tuple = ()             # "wgmma", "tma", "global-scratch"
    maxnreg: Optional[int] = None    # the variants' register budget
    future: Any = None
    epoch: int = 0                   # its CUfunction's, when requested

    def stop_routing(self, reason: str) -> bool:
        """Its launches pass through from now on, for `reason` (said once);
        False, for the launch that found it."""
        self.reason, self.state = reason, _NONE
        _warn(f"kernel '{self.name}': {reason}; it is not routed")
        return False


class _State:
    def __init__(self):
        self.lock = threading.RLock()
        self.installed = False
        self.driver = None
        self.base_launcher_cls = None
        self.compile_hook = False
        self.previous_stage_hook = None
        # Routing, read on every launch without the lock.
        self.route_be = False
        self.thread_class: dict = {}
        self.default_class = BEST_EFFORT
        self.lc_sms = 0
        self.grace_us = 200.0
        self.prepare_eagerly = os.environ.get("BATON_TRITON_PREPARE") == "eager"
        # Kernels shorter than this (median of `samples` timed launches)
        # are not routed: they end within the scheduler's preemption bound
        # (BATON_PREEMPTION_BOUND_US, 100 us) anyway, so a pause would not
        # get latency-critical work started sooner, and routing costs host
        # and device time per launch. 0 routes all.
        self.min_route_us = float(
            os.environ.get("BATON_ROUTE_MIN_US")
            or os.environ.get("BATON_PREEMPTION_BOUND_US") or "100")
        self.samples = 3
        # Best-effort threads wait on the host, at most this long, while a
        # latency-critical bracket is open (0: they do not).
        self.gate_max_us = 1000.0 * float(
            os.environ.get("BATON_BE_GATE_MAX_MS", "100"))
        # How long Triton's module loads wait for latency-critical work to
        # release paused routed launches before those are drained; see
        # _load_start_hook.
        self.load_patience_us = 1000.0 * float(
            os.environ.get("BATON_LOAD_PATIENCE_MS", "100"))
        self.load_holds: dict = {}   # thread id -> [hold ids]
        self.loaded: dict = {}       # CUfunction -> _Loaded
        self.kernels: dict = {}      # CUfunction -> _Kernel
        self.launchers = weakref.WeakSet()
        self.pool = None
        self.cache: Optional[Cache] = None
        self.compiled = {}           # kernel name -> variants made at compile
        self.stage_key = None        # stage_hook()'s own (key, hash)
        self.stage_chained = None    # (a previous hook's, the two chained)


_STATE = _State()


def _triton():
    import triton  # noqa: F401
    return triton


def _triton_at_least(major: int, minor: int) -> bool:
    m = re.match(r"(\d+)\.(\d+)", _triton().__version__)
    return bool(m) and (int(m.group(1)), int(m.group(2))) >= (major, minor)


# --------------------------------------------------------------- assembly

def _ptx_version(ptx: str) -> Optional[int]:
    """The PTX's `.version` as Triton numbers it (9.0 is 90)."""
    m = re.search(r"^\s*\.version\s+(\d+)\.(\d+)", ptx, re.MULTILINE)
    return int(m.group(1)) * 10 + int(m.group(2)) if m else None


def _ptxas_for(arch: int, ptx: str):
    """Triton's ptxas for `arch`, unless the PTX is newer than it accepts.

    Inductor's compile workers, or an earlier job sharing Triton's cache,
    may have lowered the kernel for another ptxas than this process's
    (TRITON_PTXAS_PATH differs between them: CUDA 13's ptxas gives
    `.version 9.0`, Triton's bundled one accepts 8.7 at most). Then the
    first of TRITON_PTXAS_PATH, the CUDA toolkit's and the PATH's ptxas
    that accepts the PTX assembles it."""
    from triton.backends.nvidia.compiler import get_ptxas, ptx_get_version
    from triton.knobs import NvidiaTool
    tool = get_ptxas(arch)
    wanted = _ptx_version(ptx)
    if wanted is None or ptx_get_version(tool.version) >= wanted:
        return tool
    cuda = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH")
    candidates = [os.environ.get("TRITON_PTXAS_PATH"),
                  cuda and os.path.join(cuda, "bin", "ptxas"),
                  "/usr/local/cuda/bin/ptxas", shutil.which("ptxas")]
    tried = [f"{tool.path} (CUDA {tool.version})"]
    for path in dict.fromkeys(c for c in candidates if c):
        other = NvidiaTool.from_path(path)
        if other is None:
            continue
        if ptx_get_version(other.version) >= wanted:
            return other
        tried.append(f"{other.path} (CUDA {other.version})")
    raise RuntimeError(
        f"no ptxas accepts the kernel's PTX .version {wanted // 10}."
        f"{wanted % 10}; tried {', '.join(tried)} (set TRITON_PTXAS_PATH "
        "to the ptxas that Triton compiled it for)")


def _ptxas_command(arch: int, enable_fp_fusion: bool, ptx_options,
                   ptx: str, instrumentation_mode: str = "") -> list:
    """ptxas as Triton's make_cubin runs it (backends/nvidia/compiler.py),
    from a ptxas that accepts `ptx`."""
    from triton import knobs
    from triton.backends.nvidia.compiler import sm_arch_from_capability
    if knobs.compilation.disable_line_info:
        debug = ["-lineinfo", "-suppress-debug-info"]
    elif knobs.nvidia.disable_ptxas_opt:
        debug = ["-g"]
    else:
        debug = ["-lineinfo"]
    fmad = [] if enable_fp_fusion else ["--fmad=false"]
    opt = ["--opt-level", "0"] if knobs.nvidia.disable_ptxas_opt else []
    # Triton 3.7 and later work around a bug of ptxas 13 so.
    reg_alloc = ["--regAllocOptLevel=2"] if _triton_at_least(3, 7) else []
    extra = ptx_options.split(" ") if ptx_options else []
    # Triton 3.8 and later assemble sanitised kernels at -O1: ptxas's
    # default miscompiles some.
    if (_triton_at_least(3, 8) and not knobs.nvidia.disable_ptxas_opt and
            any(m in instrumentation_mode for m in ("consan", "fpsan"))):
        extra += ["--opt-level", "1"]
    ptxas = _ptxas_for(arch, ptx)
    # -v as well: ptxas 13.4 records it in the cubin.
    return [ptxas.path, ptxas.version, *debug, *fmad, "-v", *opt, *reg_alloc,
            *extra, f"--gpu-name={sm_arch_from_capability(arch)}"]


def assemble(ptx: str, arch: int, enable_fp_fusion: bool = True,
             ptx_options: Optional[str] = None,
             cache: Optional[Cache] = None,
             instrumentation_mode: str = "") -> bytes:
    """A cubin of `ptx`, built by Triton's ptxas with the options Triton
    uses for a kernel compiled with these metadata; cached by content."""
    cmd = _ptxas_command(arch, enable_fp_fusion, ptx_options, ptx,
                         instrumentation_mode)
    cache = cache if cache is not None else default_cache()
    key = content_key("baton-cubin/1", "\0".join(cmd), ptx)
    cubin = cache.get(key, ".cubin")
    if cubin is not None:
        return cubin
    ptxas, _version, *flags = cmd
    with tempfile.TemporaryDirectory(prefix="baton-ptxas-") as tmp:
        src, out = Path(tmp) / "k.ptx", Path(tmp) / "k.cubin"
        src.write_text(ptx)
        r = subprocess.run([ptxas, *flags, str(src), "-o", str(out)],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"ptxas failed ({r.returncode}): "
                               f"{(r.stderr or r.stdout).strip()[:2000]}")
        cubin = out.read_bytes()
    cache.put(key, ".cubin", cubin)
    return cubin


# ------------------------------------------------------------ compile hook

def _transform_stage(ptx: str, metadata: dict) -> str:
    name = metadata.get("name", "<triton>")
    try:
        result = transform_ptx(ptx, name=name, cache=_STATE.cache)
    except Exception as e:  # never break a compile: the original still works
        _warn(f"kernel '{name}': PTX not transformed: {e}")
        return ptx
    k = next((k for k in result.kernels if k.name == name), None)
    if k is not None:
        _STATE.compiled[name] = (k.variants, k.refusals)
    return result.ptx


def _own_stage_key() -> tuple:
    """Baton's part of Triton's cache keys (stage_hook)."""
    if _STATE.stage_key is None:
        key = "baton-variants-" + transformer_id()
        _STATE.stage_key = (key, content_key(key))
    return _STATE.stage_key


def stage_hook(backend=None, stages=None, options=None, language=None,
               capability=None):
    """Triton's add_stages_inspection_hook: the "ptx" stage's output gets
    the variants before the "cubin" stage assembles it. Triton 3.7 and
    later also call it with no arguments, for its part of the cache keys
    (key, hash): the transformer's, so that cubins with and without
    variants never share an entry."""
    previous = _STATE.previous_stage_hook
    if stages is None:  # Triton asks at every launch: worked out once
        own = _own_stage_key()
        if previous is None:
            return own
        theirs = previous()
        if _STATE.stage_chained is None or _STATE.stage_chained[0] != theirs:
            _STATE.stage_chained = (theirs, (theirs[0] + own[0],
                                             content_key(theirs[1], own[1])))
        return _STATE.stage_chained[1]
    if previous is not None:
        previous(backend, stages, options, language, capability)
    make_ptx = stages.get("ptx")
    if make_ptx is None:
        return

    def ptx_with_variants(src, metadata):
        return _transform_stage(make_ptx(src, metadata), metadata)

    stages["ptx"] = ptx_with_variants


# -------------------------------------------------------------- load hooks

def _load_start_hook(module, function, name, metadata_group, hash):
    """Before Triton loads a kernel's module: a load made while a routed
    launch waits paused never returns (the paused launch's stream waits for
    a resume, and the resume, queued after the load began, waits for the
    load; docs/scheduling.md, "Deadlocks avoided"). So routed work is held
    back until the load ends, once none of it is left on the device. Routed
    work that latency-critical work keeps paused for longer than
    BATON_LOAD_PATIENCE_MS (the thread's own bracket, say) is drained: it
    stops yielding until it is done."""
    st = _STATE
    if not (_core.HAS_RUNTIME and _core.router_running()):
        return
    hold = _core.hold_for_load(st.load_patience_us)
    thread = threading.get_ident()
    st.load_holds.setdefault(thread, []).append(hold)
    # A load that raised skips the end hook; if its thread then never
    # launches again, the hold would stop routed work for good.
    lease = threading.Timer(_LOAD_HOLD_LEASE_S, _expire_load_hold,
                            (thread, hold))
    lease.daemon = True
    lease.start()


# A load takes milliseconds; a hold older than this was left by a load that
# raised.
_LOAD_HOLD_LEASE_S = 10.0


def _release_load_holds(thread: Optional[int] = None) -> None:
    """Ends a thread's load holds (the calling thread's by default): at the
    end of its load, or, if the load raised before the end hook ran, at the
    thread's next launch. Releasing a hold twice is harmless."""
    key = threading.get_ident() if thread is None else thread
    for hold in _STATE.load_holds.pop(key, ()):
        _core.release_hold(hold)


def _expire_load_hold(thread: int, hold: int) -> None:
    holds = _STATE.load_holds.get(thread)
    if not holds or hold not in holds:
        return  # released by its thread
    holds.remove(hold)
    _core.release_hold(hold)
    _warn(f"a Triton module load held routed launches back for "
          f"{_LOAD_HOLD_LEASE_S:.0f} s without its end hook (the load "
          "raised?); released")


def _load_hook(module, function, name, metadata_group, hash):
    try:
        if function:
            function = int(function)
            # Known already: its kernel was unloaded unseen (the unload
            # hook is Triton 3.8's).
            if function in _STATE.loaded or function in _STATE.kernels:
                _forget(function)
            with _STATE.lock:
                _STATE.loaded[function] = _Loaded(
                    name, dict(metadata_group or {}), hash)
    finally:
        _release_load_holds()


def _forget(function: int) -> None:
    """The kernel a CUfunction handle names is unloaded, or a load gave its
    handle to another kernel. What was prepared, bound, timed or told the
    bypass gate for it is dropped, and a preparation still running for it
    cannot bind (python/src/Router.h, epoch)."""
    with _STATE.lock:
        _STATE.kernels.pop(function, None)
        _STATE.loaded.pop(function, None)
    if _core.HAS_RUNTIME:
        _core.forget_function(function)


def _epoch(function: int) -> int:
    return _core.function_epoch(function) if _core.HAS_RUNTIME else 0


def _unload_hook(module, function, name, metadata_group, hash):
    """Triton 3.8's kernel_unload_hook: called just before Triton unloads
    the module of a kernel nobody holds (CompiledKernel.__del__)."""
    if function:
        _forget(int(function))


# --------------------------------------------------------- variant binding

def _ptx_of(loaded: _Loaded) -> Optional[str]:
    for file, path in loaded.files.items():
        if file.endswith(".ptx"):
            try:
                return Path(path).read_text()
            except OSError:
                return None
    return None


def _features(ptx: Optional[str], md) -> tuple:
    """What the report says about a kernel's kind (Hopper matmul templates
    use wgmma, TMA and global scratch)."""
    found = []
    if ptx and "wgmma." in ptx:
        found.append("wgmma")
    if ptx and "cp.async.bulk.tensor" in ptx:
        found.append("tma")
    if md.get("global_scratch"):
        found.append("global-scratch")
    return tuple(found)


def _register_budget(md, registers: int) -> Optional[int]:
    """The .maxnreg that keeps the variants at the original's occupancy
    (registers: the original's), unless BATON_FIT_REGISTERS=0."""
    if os.environ.get("BATON_FIT_REGISTERS") == "0" or not registers:
        return None
    return _core.register_budget(md["arch"], registers, md["threads"],
                                 md["shared"])


def _prepare(function: int, kernel: _Kernel, md) -> None:
    """Finds or builds the variants of one kernel and binds them."""
    try:
        loaded = _STATE.loaded.get(function)
        ptx = _ptx_of(loaded) if loaded else None
        kernel.features = _features(ptx, md)
        binding = _core.bind(function, kernel.epoch)
        # Variants in Triton's cubin (the compile hook ran), unless its PTB
        # variant would need more shared memory than the device has: then
        # a cubin of Baton's own, with the slice variant only.
        if (binding["ptb"] or binding["slice"]) and (
                md["ptb_allowed"] or not binding["ptb"]):
            kernel.source = "triton-cubin"
            kernel.variants = tuple(v for v in ("slice", "ptb") if binding[v])
            kernel.state = _READY
            return
        if ptx is None:
            kernel.reason = ("no PTX kept for it (Triton cache entry without "
                             ".ptx, e.g. TRITON_STORE_BINARY_ONLY=1)")
            kernel.state = _NONE
            return
        budget = _register_budget(md, binding["registers"])
        result = transform_ptx(ptx, name=kernel.name, kernels=[kernel.name],
                               ptb=md["ptb_allowed"],
                               register_budgets={kernel.name: budget}
                               if budget else None, cache=_STATE.cache)
        report = result.kernel(kernel.name)
        kernel.refusals = report.refusals
        kernel.maxnreg = report.variant_maxnreg
        if not report.variants:
            kernel.reason = "refused: " + "; ".join(
                str(r) for r in report.refusals)
            kernel.state = _NONE
            return
        cubin = assemble(result.ptx, md["arch"], md["enable_fp_fusion"],
                         md["ptx_options"], cache=_STATE.cache,
                         instrumentation_mode=md["instrumentation_mode"])
        binding = _core.bind_image(function, cubin, kernel.name, kernel.epoch)
        kernel.source = "baton-cubin"
        kernel.variants = tuple(v for v in ("slice", "ptb") if binding[v])
        kernel.state = _READY if kernel.variants else _NONE
        if not kernel.variants:
            kernel.reason = "the assembled module has no variants"
    except Exception as e:
        kernel.state = _NONE
        kernel.reason = f"variants could not be prepared: {e}"
        if _STATE.kernels.get(function) is kernel:  # else: unloaded since
            _warn(f"kernel '{kernel.name}': {kernel.reason}")


def _request(function: int, launcher: "BatonLauncher") -> _Kernel:
    st = _STATE
    with st.lock:
        kernel = st.kernels.get(function)
        if kernel is not None:
            return kernel
        kernel = _Kernel(launcher.name,
                         epoch=launcher.functions.get(function, 0))
        st.kernels[function] = kernel
        if st.pool is None:
            workers = (int(os.environ.get("BATON_TRITON_PREPARE_WORKERS") or 0)
                       or max(1, min(8, (os.cpu_count() or 2) // 2)))
            st.pool = concurrent.futures.ThreadPoolExecutor(
                workers, thread_name_prefix="baton-prepare")
        kernel.future = st.pool.submit(_prepare, function, kernel,
                                       launcher.prepare_metadata)
    return kernel


def prepare_loaded(wait: bool = True, timeout: Optional[float] = None,
                   launched_since: Optional[float] = None) -> int:
    """Prepares the variants of every kernel launched so far through a
    BatonLauncher (or since `launched_since`, a time.monotonic() value: a
    job that warms up with autotuning skips the candidates it discarded),
    and waits for them if `wait`. Returns how many kernels are ready. A job
    calls it after its warm-up, so that its first routed step does not run
    originals while ptxas works."""
    for launcher in list(_STATE.launchers):
        if launched_since is not None and launcher.last_launch < launched_since:
            continue
        for function, epoch in list(launcher.functions.items()):
            # A launcher can outlive its kernel, whose handle may name
            # another kernel now, of other metadata.
            if launcher.unroutable is None and epoch == _epoch(function):
                _request(function, launcher)
    if wait:
        futures = [k.future for k in list(_STATE.kernels.values()) if k.future]
        concurrent.futures.wait(futures, timeout=timeout)
    return sum(1 for k in _STATE.kernels.values() if k.state == _READY)


# ---------------------------------------------------------------- launcher

def _allocator(which: str):
    from triton.runtime import _allocation
    return (_allocation._allocator if which == "global"
            else _allocation._profile_allocator).get()


def _why_unroutable(metadata, device: int) -> Optional[str]:
    if getattr(metadata, "num_ctas", 1) != 1:
        return "uses thread-block clusters (num_ctas > 1)"
    if getattr(metadata, "launch_cooperative_grid", False):
        return "needs a cooperative grid"
    if getattr(metadata, "launch_pdl", False):
        return "uses programmatic dependent launch"
    if device != 0:
        return f"runs on device {device} (the router drives device 0)"
    return None


class BatonLauncher:
    """Triton's launcher for one compiled kernel, wrapped (see the module
    docstring). Called as Triton calls its launcher:
    (gridX, gridY, gridZ, stream, function, packed_metadata,
     launch_metadata, enter_hook, exit_hook, *kernel_args)."""

    def __init__(self, src, metadata):
        st = _STATE
        self.base = st.base_launcher_cls(src, metadata)
        self.name = metadata.name
        self.metadata = metadata
        self.signature = dict(getattr(src, "signature", {}) or {})
        self.block_x = 32 * metadata.num_warps
        self.shared = metadata.shared
        self.functions = {}          # CUfunction -> its epoch, when launched
        self.short_for_gate = set()  # told to the bypass gate as short
        self.last_launch = 0.0
        self.scheduled = 0
        self.passed = 0
        self.short = 0          # not routed: shorter than min_route_us
        self.held = 0           # waited on the host for a bracket to close
        self.latency_critical = 0
        self.captured = 0       # issued into a CUDA graph being captured
        self.time_us = None     # median duration, once measured
        self.timed = 0          # launches timed so far
        self._packer = None
        try:
            self.device = st.driver.get_current_device()
        except Exception:
            self.device = 0
        self.unroutable = _why_unroutable(metadata, self.device)
        target = getattr(metadata, "target", None)
        arch = getattr(target, "arch", None) or 90
        try:
            max_shared = st.driver.utils.get_device_properties(
                self.device)["max_shared_mem"]
        except Exception:
            max_shared = 0
        self.prepare_metadata = {
            "arch": int(arch),
            "enable_fp_fusion": getattr(metadata, "enable_fp_fusion", True),
            "ptx_options": getattr(metadata, "ptx_options", None),
            "instrumentation_mode": getattr(metadata, "instrumentation_mode",
                                            "") or "",
            # The PTB variant needs PTB_DYNAMIC_SHARED_BYTES of dynamic shared
            # memory more.
            "ptb_allowed": not max_shared or
            self.shared + _core.PTB_DYNAMIC_SHARED_BYTES <= max_shared,
            "global_scratch": getattr(metadata, "global_scratch_size", 0) or 0,
            "threads": self.block_x,
            "shared": self.shared,
        }
        st.launchers.add(self)

    def packer(self) -> ArgPacker:
        if self._packer is None:
            from triton.backends.nvidia import driver as nvdriver
            md = self.metadata
            self._packer = ArgPacker(
                self.signature, getattr(md, "tensordesc_meta", None),
                global_scratch=(getattr(md, "global_scratch_size", 0) or 0,
                                getattr(md, "global_scratch_align", 1) or 1),
                profile_scratch=(getattr(md, "profile_scratch_size", 0) or 0,
                                 getattr(md, "profile_scratch_align", 1) or 1),
                num_ctas=getattr(md, "num_ctas", 1),
                make_tensordesc_arg=getattr(nvdriver, "make_tensordesc_arg",
                                            None),
                allocators=_allocator)
        return self._packer

    def __call__(self, gx, gy, gz, stream, function, *args):
        st = _STATE
        if st.load_holds:
            _release_load_holds()
        self.last_launch = _now()
        cls = st.thread_class.get(threading.get_ident(), st.default_class)
        if cls == LATENCY_CRITICAL:
            self.latency_critical += 1
            if _core.HAS_RUNTIME and _core.router_running() and \
                    not _core.lc_touch(stream, st.lc_sms, st.grace_us):
                self.captured += 1  # no bracket: the replays need their own
            return self.base(gx, gy, gz, stream, function, *args)
        if function not in self.functions:
            self.functions[function] = _epoch(function)
            if st.prepare_eagerly and self.unroutable is None:
                _request(function, self)
        if not st.route_be or self.unroutable is not None or gx * gy * gz == 0:
            self.passed += 1
            return self.base(gx, gy, gz, stream, function, *args)
        if _core.stream_capturing(stream):
            # Captured as the original: the scheduler never sees the
            # graph's replays, and nothing of its own may enter the graph.
            self.captured += 1
            return self.base(gx, gy, gz, stream, function, *args)
        if st.gate_max_us and _core.be_gate(st.gate_max_us):
            self.held += 1
        kernel = st.kernels.get(function)
        if kernel is None:
            kernel = _request(function, self)
        if st.min_route_us > 0 and (self.time_us is None
                                    or self.time_us < st.min_route_us):
            if self.time_us is None and not self._measure(function, stream):
                if self.timed < st.samples:  # time this launch
                    self.timed += 1
                    self.passed += 1
                    token = _core.time_begin(function, stream)
                    self.base(gx, gy, gz, stream, function, *args)
                    _core.time_end(token, stream)
                    return
                self.passed += 1  # samples still running on the GPU
                return self.base(gx, gy, gz, stream, function, *args)
            if self.time_us < st.min_route_us:
                self.short += 1
                if function not in self.short_for_gate:
                    # Short for the bypass gate too (BypassGate.h).
                    self.short_for_gate.add(function)
                    if _core.HAS_BYPASS_GATE:
                        _core.bypass_gate_short(function, self.time_us)
                return self.base(gx, gy, gz, stream, function, *args)
        if function in self.short_for_gate:  # min_route_us was lowered
            self.short_for_gate.discard(function)
            if _core.HAS_BYPASS_GATE:
                _core.bypass_gate_not_short(function)
        if kernel.state == _READY:
            submitted = self._submit(kernel, gx, gy, gz, stream, function,
                                     args)
            if submitted:
                self.scheduled += 1
                return
            if submitted is None:  # the stream began capturing meanwhile
                self.captured += 1
                return self.base(gx, gy, gz, stream, function, *args)
        self.passed += 1
        return self.base(gx, gy, gz, stream, function, *args)

    def _measure(self, function, stream) -> bool:
        """Sets time_us once enough timed launches have completed."""
        us = _core.kernel_time_us(function, _STATE.samples)
        if us < 0:
            return False
        self.time_us = us
        return True

    def _submit(self, kernel, gx, gy, gz, stream, function, args):
        """True if the scheduler has the launch; False if it must pass
        through; None if its stream began capturing a graph after __call__
        looked (another thread's doing: the original is captured)."""
        launch_metadata, enter_hook, exit_hook = args[1], args[2], args[3]
        try:
            packer = self.packer()
            scratch = packer.scratch(gx * gy * gz, stream)
            params = packer.pack(args[4:], scratch)
        except (PackError, struct.error, TypeError, ValueError,
                AttributeError) as e:
            return kernel.stop_routing(f"arguments do not pack: {e}")
        if enter_hook is not None:
            enter_hook(launch_metadata)
        refused = None
        try:
            issued = _core.submit(function, gx, gy, gz, self.block_x,
                                  self.shared, stream, params)
        except Exception as e:
            # submit() raises only before anything was issued.
            issued, refused = False, f"the scheduler refused it: {e}"
        # Balanced even when nothing was issued: the launch that passes
        # through calls both hooks again.
        if exit_hook is not None:
            exit_hook(launch_metadata)
        if refused:
            return kernel.stop_routing(refused)
        return True if issued else None



# ----------------------------------------------------------------- control

def install(*, compile_hook: bool = False, cache: Optional[Cache] = None) -> None:
    """Puts BatonLauncher and the load hook in place (idempotent). Kernels
    loaded before keep Triton's own launcher. With compile_hook, PTX that
    this process compiles gets its variants at compile time too."""
    st = _STATE
    with st.lock:
        triton = _triton()
        from triton import knobs
        from triton.runtime import driver
        if not hasattr(knobs, "runtime") or not hasattr(
                knobs.runtime, "kernel_load_end_hook"):
            raise RuntimeError(
                f"Triton {triton.__version__} lacks the hooks Baton uses "
                "(knobs.runtime.kernel_load_end_hook); Triton 3.4 or later "
                "is needed")
        st.cache = cache if cache is not None else default_cache()
        if not st.installed:
            active = driver.active
            st.driver = active
            st.base_launcher_cls = active.launcher_cls
            active.launcher_cls = BatonLauncher
            knobs.runtime.kernel_load_end_hook.add(_load_hook)
            if hasattr(knobs.runtime, "kernel_unload_hook"):  # Triton 3.8
                knobs.runtime.kernel_unload_hook.add(_unload_hook)
            if hasattr(knobs.runtime, "kernel_load_start_hook"):
                knobs.runtime.kernel_load_start_hook.add(_load_start_hook)
            st.installed = True
        if compile_hook and not st.compile_hook:
            previous = knobs.runtime.add_stages_inspection_hook
            st.previous_stage_hook = None if previous is stage_hook else previous
            _own_stage_key()  # here, not in a launch, if it fails
            knobs.runtime.add_stages_inspection_hook = stage_hook
            st.compile_hook = True


def uninstall() -> None:
    """Restores Triton's launcher class and hooks. Kernels loaded while
    installed keep their BatonLauncher, which then passes every launch
    through."""
    st = _STATE
    with st.lock:
        if not st.installed:
            return
        from triton import knobs
        st.route_be = False
        st.thread_class.clear()
        st.default_class = BEST_EFFORT
        if _core.HAS_BYPASS_GATE:
            _core.bypass_gate_clear_classes()
        st.driver.launcher_cls = st.base_launcher_cls
        knobs.runtime.kernel_load_end_hook.remove(_load_hook)
        if hasattr(knobs.runtime, "kernel_unload_hook"):
            knobs.runtime.kernel_unload_hook.remove(_unload_hook)
        if hasattr(knobs.runtime, "kernel_load_start_hook"):
            knobs.runtime.kernel_load_start_hook.remove(_load_start_hook)
        for thread in list(st.load_holds):
            _release_load_holds(thread)
        if st.compile_hook:
            knobs.runtime.add_stages_inspection_hook = st.previous_stage_hook
            st.previous_stage_hook = None
            st.compile_hook = False
        st.installed = False


def installed() -> bool:
    return _STATE.installed


def _reset() -> None:
    """Forgets everything (tests only; uninstall() first)."""
    global _STATE
    if _STATE.pool is not None:
        _STATE.pool.shutdown(wait=True)
    _STATE = _State()


def set_routing(best_effort: bool, *, lc_sms: Optional[int] = None,
                grace_us: Optional[float] = None,
                min_route_us: Optional[float] = None) -> None:
    """Whether best-effort launches go to the scheduler (else they pass
    through, as without Baton); the SMs and grace period of automatic
    latency-critical brackets; the shortest kernel routed (0: all)."""
    st = _STATE
    if min_route_us is not None:
        st.min_route_us = float(min_route_us)
        if _core.HAS_BYPASS_GATE:  # short for routing, short for the gate
            _core.bypass_gate_short_budget(st.min_route_us)
    if best_effort and not _core.HAS_RUNTIME:
        raise RuntimeError("baton._core was built without the runtime")
    if best_effort:
        _core.router_start()
    turned_on = bool(best_effort) and not st.route_be
    st.route_be = bool(best_effort)
    if turned_on and st.installed:
        # The kernels the job has been launching lately get their variants
        # now, in the background, rather than one by one at their first
        # routed launch (older ones are mostly discarded autotuning
        # candidates).
        prepare_loaded(wait=False, launched_since=_now() - 5.0)
    if lc_sms is not None:
        st.lc_sms = int(lc_sms)
    if grace_us is not None:
        st.grace_us = float(grace_us)


def _gate_class(cls: int) -> str:
    """The bypass gate's name for a thread class."""
    return "latency-critical" if cls == LATENCY_CRITICAL else "best-effort"


def set_thread_class(cls: int, thread: Optional[int] = None,
                     default: bool = False) -> None:
    """Launches from `thread` (an ident; the calling thread if None) are of
    class `cls`; with default=True, `cls` becomes the class of threads that
    have none."""
    st = _STATE
    gate_class = _gate_class(cls)
    if default:
        st.default_class = cls
        if _core.HAS_BYPASS_GATE:
            _core.bypass_gate_default_class(gate_class)
        return
    ident = threading.get_ident() if thread is None else thread
    table = dict(st.thread_class)  # copy-on-write: readers take no lock
    table[ident] = cls
    st.thread_class = table
    if _core.HAS_BYPASS_GATE:
        _core.bypass_gate_thread_class(ident, gate_class)


def clear_thread_class(thread: Optional[int] = None) -> None:
    st = _STATE
    ident = threading.get_ident() if thread is None else thread
    table = dict(st.thread_class)
    table.pop(ident, None)
    st.thread_class = table
    if _core.HAS_BYPASS_GATE:
        _core.bypass_gate_thread_class(ident, "none")


def kernels(launched_since: Optional[float] = None) -> list:
    """One entry per kernel name seen through a BatonLauncher (launched
    since `launched_since`, a time.monotonic() value, if given: autotuning
    candidates that were discarded drop out): whether its launches are
    routed, its variants and where they come from, why not, and how many
    launches were scheduled / passed through / LC / captured into a CUDA
    graph (issued as the original: the graph's replays bypass Baton)."""
    st = _STATE
    by_name: dict = {}
    for launcher in list(st.launchers):
        if launched_since is not None and launcher.last_launch < launched_since:
            continue
        e = by_name.setdefault(launcher.name, {
            "name": launcher.name, "state": "not launched", "variants": (),
            "source": "", "reason": launcher.unroutable or "",
            "refusals": [], "features": (), "scheduled": 0, "passed_through": 0,
            "latency_critical": 0, "captured": 0})
        e["scheduled"] += launcher.scheduled
        e["captured"] += launcher.captured
        e["passed_through"] += launcher.passed
        e["short"] = e.get("short", 0) + launcher.short
        e["held"] = e.get("held", 0) + launcher.held
        if launcher.time_us is not None:
            e["time_us"] = round(launcher.time_us, 1)
        e["latency_critical"] += launcher.latency_critical
        for function in launcher.functions:
            k = st.kernels.get(function)
            if launcher.unroutable:
                e["state"] = "not routable"
            elif k is None:
                e["state"] = e["state"] if e["state"] != "not launched" \
                    else "not prepared"
            else:
                e["state"] = k.state
                e["variants"] = k.variants
                e["features"] = k.features
                e["source"] = k.source
                e["maxnreg"] = k.maxnreg
                e["reason"] = k.reason or e["reason"]
                e["refusals"] = [str(r) for r in k.refusals]
    for name, (variants, refusals) in st.compiled.items():
        if name in by_name and not by_name[name]["variants"]:
            by_name[name]["compiled_variants"] = variants
    return sorted(by_name.values(), key=lambda e: e["name"])
