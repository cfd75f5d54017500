"""PyTorch: best-effort training that yields to latency-critical work,
with no change to the model.

In the training job:

    import baton.torch
    baton.torch.enable(priority="best-effort")
    model = torch.compile(model)          # the training loop is unchanged

and in the inference job (another thread of the process):

    baton.torch.enable(priority="latency-critical", slo_ms=20)

`with baton.torch.enabled(priority=...):` does the same for a block, and
BATON_TORCH=best-effort|latency-critical in the environment makes
`import baton.torch` call enable() (BATON_TORCH_SCHEDULE sets `schedule`).

What enable() does (docs/torch.md says why):

  * installs Baton's Triton launcher and load hook (baton.triton), so that
    every Triton kernel Triton loads can run as a preemptible variant;
  * best-effort: applies the Inductor settings that send matmuls and
    convolutions to Triton templates (and keep kernels on Triton's launcher
    instead of Inductor's static one); routes the calling thread's Triton
    launches, and those of threads without a class (autograd's backward
    thread), to the scheduler;
  * latency-critical: makes the calling thread's launches latency-critical:
    each opens (or extends) a bracket during which best-effort kernels are
    paused, closed once the thread's streams are idle; gives the thread a
    high-priority stream, and makes the thread's first cuBLAS and cuDNN
    calls there (warm_up) before any bracket is open;
  * sets CUDA_MODULE_LOADING=EAGER and CUDA_DEVICE_MAX_CONNECTIONS=32 if CUDA
    is not initialised yet (a paused launch leaves a stream waiting on the
    device, which lazy loading and shared hardware queues do not survive).

`schedule` says when best-effort launches are routed: "auto" (default)
while a latency-critical client is registered in the process, "always",
or "never" (the hooks are installed but every launch passes through; a
reference run). While they are not routed they run exactly as without
Baton.

report() says which kernels got variants, which were refused or not
routed and why, what bypasses Baton (cuBLAS/cuDNN/flash attention kernels
that remain, CUDA graphs), and the scheduler's counters.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from typing import Any, Callable, Optional

from . import _core
from . import _gemm
from . import triton as _bt

__all__ = ["enable", "disable", "enabled", "set_schedule", "set_bypass_gate",
           "latency_critical", "report", "profile_bypass", "inductor_settings",
           "apply_inductor_settings", "Report"]

BEST_EFFORT = "best-effort"
LATENCY_CRITICAL = "latency-critical"
_PRIORITIES = (BEST_EFFORT, LATENCY_CRITICAL)
_SCHEDULES = ("auto", "always", "never")

# Inductor settings. Launcher settings apply to both classes: Baton sees a
# Triton launch only through Triton's launcher. Routing settings apply to
# best-effort jobs: they move work from cuBLAS/cuDNN into Triton templates,
# which get variants.
_LAUNCHER_SETTINGS = {
    # Inductor launches Triton kernels from the cubin with a launcher of its
    # own unless this is off; Baton's launcher would never be called.
    "use_static_cuda_launcher": False,
    # Kernels replayed from a CUDA graph are not launched by anyone.
    "triton.cudagraphs": False,
}
_ROUTING_SETTINGS = {
    # GEMMs (mm, addmm, bmm, 1x1 convolutions) as Triton templates. ATen
    # stays a candidate, and _gemm.prefer drops it where a template exists
    # (under matmuls="long", for long products only).
    "max_autotune_gemm": True,
    "max_autotune_gemm_backends": "ATEN,TRITON",
    "max_autotune_conv_backends": "ATEN,TRITON",
}


class _State:
    def __init__(self):
        self.lock = threading.RLock()
        self.installed = False
        self.schedule = "auto"
        self.lc_clients = 0
        self.be_threads = set()
        self.lc_threads = {}            # ident -> (previous stream, slo_ms)
        self.saved_settings = {}        # dotted name -> previous value
        self.applied_settings = {}
        self.missing_settings = []
        self.preprocessing_installed = False
        self.cuda_env_note = ""
        self.attention = None
        self.saved_sdp = None
        self.slo_ms = None
        self.lc_sms = 0
        self.exit_registered = False
        self.remote_lc = False          # another process is latency-critical
        self.remote_watch = None
        self.bypass_gate = "not started"  # "on", or why it is off
        self.gate_wanted = None         # set_bypass_gate(); None: the env


_S = _State()


def _warn(msg: str) -> None:
    print(f"baton: {msg}", file=sys.stderr, flush=True)


# ------------------------------------------------------------ settings

def _config_target(config, dotted: str):
    obj = config
    *path, leaf = dotted.split(".")
    for part in path:
        obj = getattr(obj, part)
    return obj, leaf


def _apply_settings(settings: dict) -> None:
    import torch._inductor.config as config
    for name, value in settings.items():
        try:
            obj, leaf = _config_target(config, name)
            previous = getattr(obj, leaf)
        except AttributeError:
            if name not in _S.missing_settings:
                _S.missing_settings.append(name)
            continue
        _S.saved_settings.setdefault(name, previous)
        setattr(obj, leaf, value)
        _S.applied_settings[name] = value


def _restore_settings() -> None:
    import torch._inductor.config as config
    for name, value in _S.saved_settings.items():
        obj, leaf = _config_target(config, name)
        setattr(obj, leaf, value)
    _S.saved_settings.clear()
    _S.applied_settings.clear()
    _gemm.configure(None)


def _install_preprocessing() -> None:
    if _S.preprocessing_installed:
        return
    try:
        from torch._inductor.select_algorithm import add_preprocessing_fn
    except ImportError:
        _S.missing_settings.append("select_algorithm.add_preprocessing_fn")
        return
    add_preprocessing_fn(_gemm.prefer)
    _S.preprocessing_installed = True


def _matmuls(matmuls: Optional[str]) -> str:
    matmuls = matmuls or os.environ.get("BATON_TORCH_MATMULS") or "triton"
    if matmuls not in _gemm.POLICIES:
        raise ValueError(f"matmuls must be one of {_gemm.POLICIES}, not "
                         f"{matmuls!r}")
    return matmuls


def inductor_settings(priority: str = BEST_EFFORT,
                      matmuls: Optional[str] = None) -> dict:
    """The Inductor settings enable() applies for `priority` (and
    `matmuls`, see enable())."""
    settings = dict(_LAUNCHER_SETTINGS)
    matmuls = _matmuls(matmuls)
    if priority == BEST_EFFORT and matmuls != "library":
        settings.update(_ROUTING_SETTINGS)
        if matmuls == "long":
            # Inductor's caches key a compiled graph by its settings, not by
            # the preprocessing that chose its GEMMs: the same backends
            # spelled in another order (which Inductor ignores) keep graphs
            # compiled under "triton" and "long" apart.
            settings["max_autotune_gemm_backends"] = "TRITON,ATEN"
            settings["max_autotune_conv_backends"] = "TRITON,ATEN"
    return settings


def apply_inductor_settings(priority: str = BEST_EFFORT,
                            matmuls: Optional[str] = None) -> dict:
    """Applies inductor_settings(priority, matmuls) (and, where GEMMs go
    to Triton, the autotuning preference for Triton templates, _gemm)
    without installing any hook: what a comparison run without Baton uses
    to train the same kernels. Returns the settings applied."""
    matmuls = _matmuls(matmuls)
    settings = inductor_settings(priority, matmuls)
    gemms_to_triton = "max_autotune_gemm" in settings
    if gemms_to_triton:
        _gemm.configure(matmuls)  # may refuse: before any change
    _apply_settings(settings)
    if gemms_to_triton:
        _install_preprocessing()
    return dict(_S.applied_settings)


def _route_attention(on: bool) -> None:
    """attention="triton": scaled_dot_product_attention decomposes into
    matmuls and a softmax that Inductor compiles to Triton, instead of the
    flash / memory-efficient / cuDNN kernels (which are faster, and bypass
    Baton)."""
    import torch
    b = torch.backends.cuda
    if on and _S.saved_sdp is None:
        _S.saved_sdp = (b.flash_sdp_enabled(), b.mem_efficient_sdp_enabled(),
                        b.cudnn_sdp_enabled())
        b.enable_flash_sdp(False)
        b.enable_mem_efficient_sdp(False)
        b.enable_cudnn_sdp(False)
    elif not on and _S.saved_sdp is not None:
        flash, mem, cudnn = _S.saved_sdp
        b.enable_flash_sdp(flash)
        b.enable_mem_efficient_sdp(mem)
        b.enable_cudnn_sdp(cudnn)
        _S.saved_sdp = None


def _prepare_cuda_env() -> None:
    """A paused best-effort launch leaves its stream waiting on the device:
    lazy module loading may wait for an idle device, and a waiting stream
    holds up the others of its hardware queue (docs/scheduling.md)."""
    import torch
    wanted = {"CUDA_MODULE_LOADING": "EAGER",
              "CUDA_DEVICE_MAX_CONNECTIONS": "32"}
    if torch.cuda.is_initialized():
        odd = [f"{k}={os.environ.get(k, '<unset>')}" for k, v in wanted.items()
               if os.environ.get(k) != v]
        if odd:
            _S.cuda_env_note = (
                "CUDA was initialised before baton.torch.enable() with "
                + ", ".join(odd) + "; set CUDA_MODULE_LOADING=EAGER and "
                "CUDA_DEVICE_MAX_CONNECTIONS=32 in the environment (or enable "
                "Baton before the first CUDA call)")
            _warn(_S.cuda_env_note)
        return
    for k, v in wanted.items():
        os.environ.setdefault(k, v)


def _update_routing() -> None:
    route = _S.schedule == "always" or (
        _S.schedule == "auto" and (_S.lc_clients > 0 or _S.remote_lc))
    _bt.set_routing(route, lc_sms=_S.lc_sms)


def _poll_remote() -> None:
    """One look at the GPU's registry of sharing processes (share.h): is
    another process latency-critical? Routing follows."""
    try:
        present = bool(_core.remote_latency_critical())
    except Exception:
        present = False
    if present != _S.remote_lc:
        with _S.lock:
            _S.remote_lc = present
            if _S.installed:
                try:
                    _update_routing()
                except RuntimeError as e:  # the runtime cannot start
                    _warn(f"best-effort launches stay unrouted: {e}")


def _watch_remote(interval: float = 0.05) -> None:
    """Best-effort processes follow other processes' latency-critical
    clients: in schedule "auto", launches are routed while one is
    registered (it announces its work itself; the scheduler's BE work
    yields to it through the registry)."""
    if (_S.remote_watch is not None or not _core.HAS_RUNTIME
            or os.environ.get("BATON_SHARE") == "0"):
        return

    stop = threading.Event()

    def loop():
        while _S.installed and not stop.wait(interval):
            _poll_remote()
        _S.remote_watch = None

    _S.remote_watch = threading.Thread(target=loop, daemon=True,
                                       name="baton-remote-lc")
    _S.remote_watch.stop = stop
    _S.remote_watch.start()


def _stop_watching_remote() -> None:
    """Ends the registry watcher before the interpreter finalises: a daemon
    thread that takes the GIL back then (leaving _core's GIL-free registry
    read) is ended by pthread_exit, whose unwinding through the C++ that
    gives the GIL back calls std::terminate ("terminate called without an
    active exception", an abort at exit of best-effort processes)."""
    watch = _S.remote_watch
    if watch is not None:
        watch.stop.set()
        watch.join(timeout=1.0)


def _at_exit() -> None:
    _stop_watching_remote()
    # The gate's timer would otherwise turn CUPTI's callbacks on or off
    # while CUDA and CUPTI tear down.
    if _S.bypass_gate == "on":
        _core.bypass_gate_stop()
        _S.bypass_gate = "stopped: the process exits"
    # Scheduled work must complete while the CUDA context still exists.
    if _core.HAS_RUNTIME and _core.router_running():
        try:
            _core.synchronize()
        except Exception as e:
            _warn(f"scheduled work failed before exit: {e}")


# ------------------------------------------------------------- control

def enable(priority: Optional[str] = None, *, slo_ms: Optional[float] = None,
           sms: int = 0, schedule: Optional[str] = None,
           inductor: bool = True, matmuls: Optional[str] = None,
           attention: Optional[str] = None,
           stream: bool = True, grace_us: Optional[float] = None,
           warm_up: Optional[bool] = None,
           compile_hook: bool = False) -> None:
    """Makes the calling thread's work best-effort or latency-critical.

    priority: "best-effort" or "latency-critical" (default: $BATON_TORCH,
      else best-effort).
    slo_ms: latency-critical: the latency the work needs (reported).
    sms: latency-critical: SMs the work needs; 0 pauses best-effort
      kernels while it runs, fewer shrinks them to the other SMs.
    schedule: "auto" | "always" | "never" (default $BATON_TORCH_SCHEDULE,
      else "auto"); see the module docstring.
    inductor: apply the Inductor settings of inductor_settings().
    matmuls: best-effort: "triton" (default, $BATON_TORCH_MATMULS) sends
      GEMMs and 1x1 convolutions to Triton templates, which get variants,
      even where cuBLAS is faster (0.87-0.88x of PyTorch's defaults for
      the large GPT on the H100); "library" leaves them to Inductor's
      usual choice (cuBLAS: full speed, but they bypass Baton and are
      held back at kernel grain only); "long" sends only products expected to
      take $BATON_TORCH_LONG_GEMM_US (300) or more in cuBLAS to Triton
      and lets the fastest kernel do the shorter ones (see _gemm).
    attention: "triton" routes scaled_dot_product_attention to Triton
      (see _route_attention); default: flash attention stays, bypassing.
    stream: latency-critical: run the thread's work on a new high-priority
      stream (made current for the thread).
    grace_us: latency-critical: how long a bracket stays open after its
      streams went idle (default 200 us, $BATON_LC_GRACE_US).
    warm_up: latency-critical: make the thread's first calls into cuBLAS,
      cuBLASLt and cuDNN now, on its stream (default: on; $BATON_LC_WARM_UP=0
      turns it off); see _warm_up_libraries.
    compile_hook: add variants at compile time too (baton.triton.install).
    """
    import torch

    if priority is None:
        priority = os.environ.get("BATON_TORCH") or BEST_EFFORT
    if priority not in _PRIORITIES:
        raise ValueError(f"priority must be one of {_PRIORITIES}, not "
                         f"{priority!r}")
    if schedule is None:
        schedule = os.environ.get("BATON_TORCH_SCHEDULE") or _S.schedule
    if schedule not in _SCHEDULES:
        raise ValueError(f"schedule must be one of {_SCHEDULES}, not "
                         f"{schedule!r}")
    if grace_us is None:
        grace_us = float(os.environ.get("BATON_LC_GRACE_US", "200"))
    if warm_up is None:
        warm_up = os.environ.get("BATON_LC_WARM_UP", "1") != "0"
    matmuls = _matmuls(matmuls)
    if priority == BEST_EFFORT and matmuls == "long":
        _gemm.long_us_from_environment()  # refused here, before any change
    ident = threading.get_ident()
    with _S.lock:
        if not _S.installed:
            _prepare_cuda_env()
            _bt.install(compile_hook=compile_hook)
            _S.installed = True
            if not _S.exit_registered:
                import atexit
                atexit.register(_at_exit)
                _S.exit_registered = True
        elif compile_hook:
            _bt.install(compile_hook=True)
        _S.schedule = schedule
        if inductor:
            apply_inductor_settings(priority, matmuls)
        if attention is not None:
            if attention not in ("triton", "library"):
                raise ValueError("attention must be 'triton' or 'library'")
            _route_attention(attention == "triton")
            _S.attention = attention
        if priority == BEST_EFFORT:
            if ident in _S.lc_threads:
                _leave_lc(ident)
            _S.be_threads.add(ident)
            _watch_remote()
            _bt.set_thread_class(_bt.BEST_EFFORT, ident)
            # Threads without a class (autograd runs backward on a thread of
            # its own) are best-effort once any thread trains.
            _bt.set_thread_class(_bt.BEST_EFFORT, default=True)
        else:
            if not _core.HAS_RUNTIME:
                raise RuntimeError("baton._core was built without the runtime")
            _core.router_start()
            # Best-effort processes keep their kernels preemptible while a
            # latency-critical one is registered: joined now, this one is
            # before its first request, not at it.
            _core.join_registry()
            previous = None
            if stream and ident not in _S.lc_threads:
                previous = torch.cuda.current_stream()
                lo, hi = torch.cuda.Stream.priority_range() \
                    if hasattr(torch.cuda.Stream, "priority_range") else (0, -1)
                torch.cuda.set_stream(torch.cuda.Stream(priority=hi))
            if ident not in _S.lc_threads:
                _S.lc_clients += 1
            _S.lc_threads[ident] = (previous, slo_ms)
            _S.be_threads.discard(ident)
            _S.slo_ms = slo_ms
            _S.lc_sms = int(sms)
            _bt.set_thread_class(_bt.LATENCY_CRITICAL, ident)
            if not _S.be_threads:
                _bt.set_thread_class(_bt.LATENCY_CRITICAL, default=True)
            _bt.set_routing(_bt._STATE.route_be, grace_us=grace_us)
        if _S.be_threads and _S.lc_threads:
            _start_bypass_gate()
        _update_routing()
    if priority == LATENCY_CRITICAL and warm_up:
        _warm_up_libraries()


def _cupti_path() -> str:
    """PyTorch's CUPTI (the nvidia-cuda-cupti wheel), else the toolkit's;
    '' to leave the choice to the loader."""
    roots = [os.path.join(p, "nvidia", sub, "lib") for p in sys.path
             for sub in ("cu13", "cuda_cupti")]
    home = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH") or \
        "/usr/local/cuda"
    roots += [os.path.join(home, "lib64"), os.path.join(home, "extras",
                                                         "CUPTI", "lib64")]
    for root in roots:
        path = os.path.join(root, "libcupti.so.13")
        if os.path.exists(path):
            return path
    return ""


def _gate_off_reason() -> Optional[str]:
    """Why the bypass gate is to stay off (its state), or None."""
    if not _core.HAS_BYPASS_GATE:
        return "off: baton._core was built without CUPTI's headers"
    if _S.gate_wanted is False:
        return "off: set_bypass_gate(False)"
    setting = os.environ.get("BATON_BYPASS_GATE", "1").strip().lower()
    if _S.gate_wanted is None and setting in ("0", "off", "false", "no"):
        return f"off: BATON_BYPASS_GATE={setting}"
    return None


def _gate_idle_after_us() -> float:
    """How long the bypass gate listens to launches with no
    latency-critical bracket opening or closing (BATON_BYPASS_GATE_IDLE_MS,
    1000 ms as the scheduler's idle time; 0: it always listens)."""
    text = os.environ.get("BATON_BYPASS_GATE_IDLE_MS", "1000")
    try:
        ms = float(text)
    except ValueError:
        ms = -1.0
    if not ms >= 0:
        _warn(f"BATON_BYPASS_GATE_IDLE_MS={text!r} is not 0 or more "
              "milliseconds; the bypass gate sleeps after 1000")
        ms = 1000.0
    return 1000.0 * ms


def _gate_start() -> str:
    """Starts the bypass gate: bounded as the host gate is
    (BATON_BE_GATE_MAX_MS), short kernels as routing counts them
    (BATON_ROUTE_MIN_US), asleep after _gate_idle_after_us(). Returns ''
    if it is on, else why not."""
    _core.bypass_gate_short_budget(_bt._STATE.min_route_us)
    return _core.bypass_gate_start(_cupti_path(), _bt._STATE.gate_max_us,
                                   _gate_idle_after_us())


def _start_bypass_gate() -> None:
    """Kernels that bypass Baton wait on the device while a latency-critical
    bracket is open (python/src/BypassGate.h): started once the process has
    both classes of threads (a process of one class leaves CUPTI to
    profilers), unless BATON_BYPASS_GATE=0 (set_bypass_gate() overrides
    it). While requests come it costs CUPTI's callback on every launch
    (1-12% of the training kept in the GPT and CNN pairs, by run); it
    stops listening after an idle second (docs/torch.md, "What bypasses
    Baton")."""
    if _S.bypass_gate == "on":
        return
    why = _gate_off_reason()
    if why:
        _S.bypass_gate = why
        return
    why = _gate_start()
    _S.bypass_gate = "on" if not why else "off: " + why
    if why:
        _warn("kernels that bypass Baton are not held back while "
              f"latency-critical work runs: {why}")


def set_bypass_gate(on: bool) -> str:
    """Turns the bypass gate on or off for this process, overriding
    BATON_BYPASS_GATE; it runs while the process has threads of both
    classes. Returns its state, as report()["bypass_gate"]["state"] does."""
    with _S.lock:
        _S.gate_wanted = bool(on)
        why = _gate_off_reason()
        if why:
            if _S.bypass_gate == "on":
                _core.bypass_gate_stop()
            _S.bypass_gate = why
        elif _S.be_threads and _S.lc_threads:
            _start_bypass_gate()
        else:
            _S.bypass_gate = "not started: waits for threads of both classes"
        return _S.bypass_gate


def _warm_up_libraries() -> None:
    """Makes the calling thread's first cuBLAS, cuBLASLt and cuDNN calls on
    its current stream, with routed best-effort work drained and held back
    (baton.triton's hold for a module load), and waits for them.

    A thread's first call sets the library up for the thread (PyTorch keeps
    a handle per thread), and cuDNN's first call loads modules. A module
    load made while a routed launch waits paused never returns, and the
    driver then holds up the training thread's next launch too
    (docs/scheduling.md, "Deadlocks avoided"): a first cuBLAS call inside a
    latency-critical bracket hung so, and this warm-up's first cuDNN call,
    made unheld next to routed training, did too (docs/benchmarks.md,
    thirty-third and thirty-fourth sessions)."""
    import torch
    hold = _core.hold_for_load(_bt._STATE.load_patience_us)
    try:
        with torch.no_grad():
            for dtype in (torch.float32, torch.float16, torch.bfloat16):
                a = torch.ones(16, 16, device="cuda", dtype=dtype)
                torch.mm(a, a)                          # cuBLAS
                torch.nn.functional.linear(a, a, a[0])  # cuBLASLt (bias)
            if (torch.backends.cudnn.is_available()
                    and torch.backends.cudnn.enabled):
                x = torch.ones(1, 4, 8, 8, device="cuda")
                w = torch.ones(4, 4, 3, 3, device="cuda")
                torch.nn.functional.conv2d(x, w)
        torch.cuda.current_stream().synchronize()
    finally:
        _core.release_hold(hold)


def _leave_lc(ident: int) -> None:
    import torch
    previous, _ = _S.lc_threads.pop(ident)
    _S.lc_clients -= 1
    if previous is not None and ident == threading.get_ident():
        torch.cuda.set_stream(previous)


def disable() -> None:
    """Undoes enable() for the calling thread; when no thread is left
    enabled, also the settings (kernels loaded meanwhile keep Baton's
    launcher, which then passes every launch through)."""
    ident = threading.get_ident()
    with _S.lock:
        if ident in _S.lc_threads:
            _leave_lc(ident)
        _S.be_threads.discard(ident)
        _bt.clear_thread_class(ident)
        if not _S.be_threads:
            _bt.set_thread_class(
                _bt.LATENCY_CRITICAL if _S.lc_threads else _bt.BEST_EFFORT,
                default=True)
        _update_routing()
        if _S.bypass_gate == "on" and not (_S.be_threads and _S.lc_threads):
            _core.bypass_gate_stop()  # CUPTI back to profilers
            _S.bypass_gate = "stopped: the process no longer has both classes"
        if not _S.be_threads and not _S.lc_threads and _S.installed:
            _bt.set_routing(False)
            _restore_settings()
            if _S.attention == "triton":
                _route_attention(False)
            _S.attention = None
            _bt.uninstall()
            _S.installed = False


@contextlib.contextmanager
def enabled(priority: Optional[str] = None, **kwargs):
    """enable() for the duration of a block."""
    enable(priority, **kwargs)
    try:
        yield
    finally:
        disable()


def set_schedule(schedule: str) -> None:
    """Changes when best-effort launches are routed ("auto", "always",
    "never"), e.g. between a reference run and a routed one."""
    if schedule not in _SCHEDULES:
        raise ValueError(f"schedule must be one of {_SCHEDULES}")
    with _S.lock:
        _S.schedule = schedule
        _update_routing()


@contextlib.contextmanager
def latency_critical(sms: Optional[int] = None):
    """An explicit bracket around latency-critical work that Baton does not
    launch (cuBLAS, cuDNN, eager PyTorch): best-effort kernels yield from
    entry until the work queued in the block on the current stream has
    completed (the block waits for it on exit)."""
    import torch
    if not _core.HAS_RUNTIME:
        yield
        return
    _core.router_start()
    with _S.lock:
        _S.lc_clients += 1
        _update_routing()
    work = _core.lc_begin(_S.lc_sms if sms is None else sms)
    try:
        yield
        torch.cuda.current_stream().synchronize()
    finally:
        _core.lc_end(work)
        with _S.lock:
            _S.lc_clients -= 1
            _update_routing()


# -------------------------------------------------------------- report

class Report(dict):
    """report()'s result: a dict (JSON-serialisable) that prints as a
    summary."""

    def __str__(self) -> str:
        lines = [f"baton.torch: {self.get('priority_threads')}, schedule="
                 f"{self.get('schedule')}, best-effort launches routed: "
                 f"{self.get('routing')} (kernels of "
                 f"{self.get('min_route_us', 0):g} us and more; 0: all)"]
        ks = self.get("kernels", [])
        ready = [k for k in ks if k["state"] == "ready"]
        lines.append(f"Triton kernels: {len(ks)} seen, {len(ready)} with "
                     f"variants")
        for k in ks:
            variants = ",".join(k["variants"]) or "-"
            extra = f"  ({k['reason']})" if k["reason"] else ""
            timed = (f"{k['time_us']:>8.1f} us" if "time_us" in k
                     else " " * 11)
            lines.append(f"  {k['name'][:56]:<56} {k['state']:<13} "
                         f"{variants:<9}{timed} routed {k['scheduled']:>6} "
                         f"passed {k['passed_through']:>6} short "
                         f"{k.get('short', 0):>6}{extra}")
        for g in self.get("gemms", []):
            us = (f"{g['library_us']:.0f} us" if g["library_us"] is not None
                  else "unknown time")
            lines.append(f"GEMM of {g['outputs']} outputs x {g['inner']} "
                         f"({g['dtype']}), {us} in the library: "
                         + ("Triton" if g["triton_only"] else "fastest"))
        for b in self.get("bypass", []):
            lines.append(f"bypasses Baton: {b}")
        gate = self.get("bypass_gate")
        if gate:
            held = (f": {gate['gated']} launches behind it, {gate['holds']} "
                    f"holds ({gate['expired']} at the bound)"
                    if "gated" in gate else "")
            if gate.get("on"):
                held += (", " + ("listening" if gate["listening"] else
                                 "asleep") +
                         f", asleep {gate['sleeps']} times when idle")
            if gate.get("listen_error"):
                held += f"; CUPTI refused: {gate['listen_error']}"
            lines.append(f"bypass gate {gate['state']}{held}")
            for name, n in gate.get("most_gated", [])[:5]:
                lines.append(f"  gated {n:>8} x {name[:70]}")
        prof = self.get("bypass_profile")
        if prof:
            lines.append(
                f"profiled step: {prof['baton']} Baton launches, "
                f"{prof['triton_not_routed']} Triton launches not routed, "
                f"{prof['external']} other kernels; at most "
                f"{prof['max_unrouted_run']} unrouted kernels in a row")
            for name, n in prof["external_top"][:10]:
                lines.append(f"  {n:>5} x {name[:90]}")
        if self.get("scheduler"):
            lines.append(f"scheduler: {self['scheduler']}")
        for note in self.get("notes", []):
            lines.append(f"note: {note}")
        return "\n".join(lines)


def report(profile: Optional[dict] = None,
           launched_since: Optional[float] = None) -> Report:
    """What Baton does for this process (see Report). `profile`: the result
    of profile_bypass(), included if given; `launched_since`: list only
    kernels launched since then (a time.monotonic() value, e.g. taken after
    compilation, so that discarded autotuning candidates drop out)."""
    r = Report()
    r["schedule"] = _S.schedule
    r["priority_threads"] = {"best-effort": len(_S.be_threads),
                             "latency-critical": len(_S.lc_threads)}
    r["routing"] = _bt._STATE.route_be
    r["min_route_us"] = _bt._STATE.min_route_us  # set_routing(min_route_us=)
    r["settings"] = dict(_S.applied_settings)
    r["settings_missing"] = list(_S.missing_settings)
    r["kernels"] = _bt.kernels(launched_since)
    r["matmuls"] = _gemm.policy or "library"
    r["gemms"] = _gemm.report()  # matmuls="long": each product judged
    r["slo_ms"] = _S.slo_ms
    bypass = []
    try:
        import torch
        import torch._inductor.config as config
        if getattr(config, "use_static_cuda_launcher", False):
            bypass.append("Inductor's static CUDA launcher is on: its Triton "
                          "kernels are not seen")
        if getattr(config.triton, "cudagraphs", False):
            bypass.append("CUDA graphs (mode='reduce-overhead'): kernels "
                          "replayed in a graph are not routed")
        if _S.attention != "triton" and torch.backends.cuda.flash_sdp_enabled():
            bypass.append("scaled_dot_product_attention: flash / memory-"
                          "efficient / cuDNN kernels (held back at kernel grain "
                          "only; attention='triton' routes it to Triton)")
    except Exception:
        pass
    captured = sum(k.get("captured", 0) for k in r["kernels"])
    r["captured"] = captured
    if captured:
        bypass.append(f"CUDA graphs: {captured} Triton launches were captured "
                      "into graphs as the original kernels; their replays "
                      "are not routed (held back at kernel grain only; bracket "
                      "latency-critical replays with latency_critical())")
    bypass.append("cuBLAS/cuDNN kernels of ops no Triton template covers "
                  "(convolution backward, eager code, the optimizer unless "
                  "compiled): see the profile for which ran")
    r["bypass"] = bypass
    if profile is not None:
        r["bypass_profile"] = profile
    if _core.HAS_RUNTIME and _core.router_running():
        r["scheduler"] = _core.stats()
    r["bypass_gate"] = {"state": _S.bypass_gate}
    if _core.HAS_BYPASS_GATE:
        r["bypass_gate"].update(_core.bypass_gate_stats())
    r["cache"] = _bt.default_cache().stats()
    notes = []
    if _S.cuda_env_note:
        notes.append(_S.cuda_env_note)
    r["notes"] = notes
    return r


def _is_baton_name(name: str) -> bool:
    return (name.endswith(_core.SLICE_SUFFIX) or name.endswith(_core.PTB_SUFFIX)
            or name == "baton_finalize")


def profile_bypass(step: Callable[[], Any], steps: int = 1) -> dict:
    """Runs `step` `steps` times under the PyTorch profiler and sorts the
    GPU kernels that ran: Baton variants (routed), Triton kernels that ran
    as originals (not routed), and everything else (cuBLAS, cuDNN, flash
    attention, ATen kernels): what bypasses Baton. max_unrouted_run is the
    longest run of kernels between two Baton launches (other kernels and
    Triton kernels that ran as originals): how many kernels that cannot be
    paused latency-critical work may find queued ahead of it.

    The bypass gate stops while the profiler runs;
    PyTorch's profiler keeps CUPTI once it has used it, so the gate then
    stays off (report()["bypass_gate"] says why)."""
    import torch
    from torch.autograd import DeviceType
    from torch.profiler import ProfilerActivity, profile

    torch.cuda.synchronize()
    # CUPTI takes one subscriber: the profiler's, for the profiled steps.
    gate_on = _S.bypass_gate == "on"
    if gate_on:
        _core.bypass_gate_stop()
        _S.bypass_gate = "stopped"
    try:
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(steps):
                step()
            if _core.HAS_RUNTIME and _core.router_running():
                _core.synchronize()
            torch.cuda.synchronize()
    finally:
        if gate_on:
            _start_bypass_gate()
    triton_names = {k["name"] for k in _bt.kernels()}
    kernels = []
    for e in prof.events():
        if getattr(e, "device_type", None) != DeviceType.CUDA:
            continue
        name = e.name
        if name.startswith(("Memcpy", "Memset", "cudaMemcpy", "cudaMemset")):
            continue
        kernels.append((e.time_range.start, name))
    kernels.sort()
    return classify_kernels([n for _, n in kernels], triton_names)


def classify_kernels(names: list, triton_names: set) -> dict:
    """The classification of profile_bypass(), over kernel names in the
    order they ran."""
    counts = {"baton": 0, "triton_not_routed": 0, "external": 0}
    external: dict = {}
    not_routed: dict = {}
    run = longest = 0
    for name in names:
        if _is_baton_name(name):
            counts["baton"] += 1
            run = 0
            continue
        if name in triton_names or name.startswith("triton_"):
            counts["triton_not_routed"] += 1
            not_routed[name] = not_routed.get(name, 0) + 1
        else:
            counts["external"] += 1
            external[name] = external.get(name, 0) + 1
        run += 1
        longest = max(longest, run)
    return {**counts, "kernels": len(names), "max_unrouted_run": longest,
            "external_top": sorted(external.items(), key=lambda kv: -kv[1]),
            "not_routed_top": sorted(not_routed.items(),
                                     key=lambda kv: -kv[1])}


if os.environ.get("BATON_TORCH") in _PRIORITIES:
    enable(os.environ["BATON_TORCH"])
elif os.environ.get("BATON_TORCH"):
    _warn(f"BATON_TORCH={os.environ['BATON_TORCH']!r} is not one of "
          f"{_PRIORITIES}; Baton is not enabled")
