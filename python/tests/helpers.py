"""Shared by the package's CPU tests: where the corpus and tools are, and a
stand-in for the parts of Triton 3.6 that baton.triton touches, so that
the hook and launcher plumbing is tested without Triton or a GPU."""

import importlib.machinery
import os
import re
import shutil
import subprocess
import sys
import tempfile
import types
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
CORPUS = Path(os.environ.get("BATON_TEST_CORPUS", REPO / "test" / "corpus"))


def triton_corpus():
    return sorted((CORPUS / "triton").glob("*.ptx"))


def tool(env_name, *names):
    """A tool named by the environment (ctest sets it), else on PATH."""
    path = os.environ.get(env_name)
    if path and os.access(path, os.X_OK):
        return path
    for name in names:
        found = shutil.which(name)
        if found:
            return found
    for candidate in ["/usr/local/cuda/bin/" + n for n in names]:
        if os.access(candidate, os.X_OK):
            return candidate
    return None


def baton_ptx():
    path = tool("BATON_TEST_BATON_PTX", "baton-ptx")
    if path:
        return path
    for build in ("build", "build-py", "build-gpu"):
        candidate = REPO / build / "tools" / "baton-ptx" / "baton-ptx"
        if os.access(candidate, os.X_OK):
            return str(candidate)
    return None


def ptxas():
    return tool("BATON_TEST_PTXAS", "ptxas")


def gpu_runtime_or_reason(core):
    """None if baton._core (`core`) can start its router here, else why
    not: the GPU tests skip with it."""
    if not getattr(core, "HAS_RUNTIME", False):
        return "baton._core was built without the runtime"
    try:
        core.router_start()
    except RuntimeError as e:
        return f"no GPU runtime here: {e}"
    return None


def have_module(name):
    try:
        __import__(name)
        return True
    except Exception:
        return False


class TempCache:
    """A fresh cache directory for one test."""

    def __enter__(self):
        import baton
        self.dir = tempfile.mkdtemp(prefix="baton-test-cache-")
        return baton.Cache(self.dir, enabled=True)

    def __exit__(self, *exc):
        shutil.rmtree(self.dir, ignore_errors=True)


# ------------------------------------------------------- a fake Triton 3.6

class HookChain:
    def __init__(self, reversed=False):
        self.calls = []

    def add(self, f):
        if f not in self.calls:
            self.calls.append(f)

    def remove(self, f):
        if f in self.calls:
            self.calls.remove(f)

    def __call__(self, *args, **kwargs):
        for f in self.calls:
            f(*args, **kwargs)


class FakeCudaLauncher:
    """Records launches as Triton's CudaLauncher would make them."""
    launches = []

    def __init__(self, src, metadata):
        self.src, self.metadata = src, metadata

    def __call__(self, gx, gy, gz, stream, function, *args):
        FakeCudaLauncher.launches.append((gx, gy, gz, stream, function, args))


class FakeDriver:
    def __init__(self):
        self.launcher_cls = FakeCudaLauncher
        self.utils = types.SimpleNamespace(
            get_device_properties=lambda device: {"max_shared_mem": 232448})

    def get_current_device(self):
        return 0


class FakeTool:
    """triton.knobs.NvidiaTool: a tool's path and its CUDA release."""

    def __init__(self, path, version):
        self.path, self.version = path, version

    @staticmethod
    def from_path(path):
        try:
            out = subprocess.run([path, "--version"], capture_output=True,
                                 text=True).stdout
        except OSError:
            return None
        m = re.search(r"release (\d+\.\d+)", out)
        return FakeTool(path, m.group(1)) if m else None


def fake_ptx_get_version(cuda_version):
    """Triton 3.6's ptx_get_version for the releases the tests name."""
    major, minor = map(int, cuda_version.split("."))
    if major >= 13:
        return 90 + (major - 13) * 10 + minor
    return 80 + minor - (1 if minor >= 6 else 0)


class Allocations:
    def __init__(self):
        self.calls = []

    def __call__(self, size, align, stream):
        self.calls.append((size, align, stream))
        return types.SimpleNamespace(data_ptr=lambda: 0x7000_0000 + size)


def _entries(top):
    return {k: v for k, v in sys.modules.items()
            if k == top or k.startswith(top + ".")}


def swap_modules(top, modules):
    """Puts stand-in `modules` (a dict name -> module) into sys.modules in
    place of `top` and its submodules; returns restore(), which puts back
    exactly the module objects that were there (a real PyTorch or Triton
    imported by another test must find its own modules again) and drops
    whatever was imported under `top` meanwhile."""
    saved = _entries(top)
    for k in saved:
        del sys.modules[k]
    for name, module in modules.items():
        module.__baton_stand_in__ = True
        # What importlib.util.find_spec() reads: a module without one
        # makes it raise (PyTorch asks for "triton" that way).
        module.__spec__ = importlib.machinery.ModuleSpec(name, None)
    sys.modules.update(modules)

    def restore():
        for k in _entries(top):
            del sys.modules[k]
        sys.modules.update(saved)

    return restore


def stand_ins_left():
    """Names of stand-in modules still in sys.modules."""
    # Read the module's own dict: torch.ops and torch.classes answer any
    # attribute with a new namespace object, which getattr would take as
    # a mark.
    return sorted(k for k, v in list(sys.modules.items())
                  if (getattr(v, "__dict__", None) or {}).get(
                      "__baton_stand_in__") is True)


def assert_no_stand_ins():
    """A test module's tearDownModule: none of its stand-ins outlives it
    (the real PyTorch of a later test would find them)."""
    left = stand_ins_left()
    if left:
        raise AssertionError(f"stand-in modules left in sys.modules: {left}")


def install_fake_triton(ptxas_path=None):
    """Puts a fake `triton` into sys.modules; returns (modules, restore).
    Not for tests that run the real PyTorch: it looks Triton up too."""
    triton = types.ModuleType("triton")
    triton.__version__ = "3.6.0+fake"
    knobs = types.ModuleType("triton.knobs")
    knobs.runtime = types.SimpleNamespace(
        kernel_load_start_hook=HookChain(),
        kernel_load_end_hook=HookChain(reversed=True),
        kernel_unload_hook=HookChain(),  # Triton 3.8 and later
        add_stages_inspection_hook=None)
    knobs.compilation = types.SimpleNamespace(disable_line_info=False)
    knobs.nvidia = types.SimpleNamespace(disable_ptxas_opt=False)
    runtime = types.ModuleType("triton.runtime")
    runtime.driver = types.SimpleNamespace(active=FakeDriver())
    allocation = types.ModuleType("triton.runtime._allocation")
    allocation.global_calls = Allocations()
    allocation.profile_calls = Allocations()
    allocation._allocator = types.SimpleNamespace(get=lambda: allocation.global_calls)
    allocation._profile_allocator = types.SimpleNamespace(
        get=lambda: allocation.profile_calls)
    runtime._allocation = allocation
    backends = types.ModuleType("triton.backends")
    nvidia = types.ModuleType("triton.backends.nvidia")
    nvdriver = types.ModuleType("triton.backends.nvidia.driver")
    nvdriver.make_tensordesc_arg = None
    compiler = types.ModuleType("triton.backends.nvidia.compiler")
    compiler.get_ptxas = lambda arch: FakeTool(ptxas_path or "ptxas", "13.0")
    compiler.ptx_get_version = fake_ptx_get_version
    knobs.NvidiaTool = FakeTool
    compiler.sm_arch_from_capability = (
        lambda c: f"sm_{c}{'a' if c >= 90 else ''}")
    nvidia.driver, nvidia.compiler = nvdriver, compiler
    backends.nvidia = nvidia
    triton.knobs, triton.runtime, triton.backends = knobs, runtime, backends
    modules = {"triton": triton, "triton.knobs": knobs,
               "triton.runtime": runtime,
               "triton.runtime._allocation": allocation,
               "triton.backends": backends, "triton.backends.nvidia": nvidia,
               "triton.backends.nvidia.driver": nvdriver,
               "triton.backends.nvidia.compiler": compiler}
    return modules, swap_modules("triton", modules)


class FakeCore:
    """Stands in for baton._core's router calls in baton.triton."""

    def __init__(self, real, variants=("slice", "ptb"), in_triton_cubin=False):
        self._real = real
        self.HAS_RUNTIME = True
        self.PTB_DYNAMIC_SHARED_BYTES = real.PTB_DYNAMIC_SHARED_BYTES
        self.SLICE_SUFFIX, self.PTB_SUFFIX = real.SLICE_SUFFIX, real.PTB_SUFFIX
        self.transform_ptx = real.transform_ptx
        self.register_budget = real.register_budget
        self.registers = 26       # the original's, as bind() reports them
        self.variants = variants
        self.in_triton_cubin = in_triton_cubin
        self.submits, self.binds, self.images, self.touches = [], [], [], []
        self.started = False
        self.joined = False       # join_registry called
        self.remote = False
        self.gate_waits = []      # be_gate calls
        self.gate_result = 0.0
        self.time_result = -1.0   # kernel_time_us's answer
        self.timed = []
        self.capturing = False    # stream_capturing's answer
        self.capture_on_submit = False  # submit finds the stream capturing
        self.bind_errors = []     # bind_image raises these, one a call
        self.epochs = {}          # function -> epoch (forget_function)
        self.forgotten = []       # forget_function calls
        self.holds = []           # hold_for_load / release_hold calls
        self.HAS_BYPASS_GATE = True
        self.gate_starts = []     # bypass_gate_start calls
        self.gate_why = ""        # ... and their answer
        self.gate_classes = []    # (thread or "default", class)
        self.gate_on = False
        self.short_calls = []     # ("short", f, us) / ("not short", f)
        self.short_budgets = []   # bypass_gate_short_budget calls
        self.most_gated = []      # bypass_gate_stats' (name, launches)

    def bypass_gate_short(self, function, time_us):
        self.short_calls.append(("short", function, time_us))

    def bypass_gate_not_short(self, function):
        self.short_calls.append(("not short", function))

    def bypass_gate_short_budget(self, us):
        self.short_budgets.append(us)

    def bypass_gate_start(self, cupti_path, max_hold_us, idle_after_us=0.0):
        self.gate_starts.append((max_hold_us, idle_after_us))
        self.gate_on = not self.gate_why
        return self.gate_why

    def bypass_gate_stop(self):
        self.gate_on = False

    def bypass_gate_thread_class(self, thread, cls):
        self.gate_classes.append((thread, cls))

    def bypass_gate_default_class(self, cls):
        self.gate_classes.append(("default", cls))

    def bypass_gate_clear_classes(self):
        self.gate_classes.append(("clear",))

    def bypass_gate_stats(self):
        return {"on": self.gate_on, "gated": 0, "holds": 0, "expired": 0,
                "listening": self.gate_on, "sleeps": 2, "wakes": 1,
                "most_gated": self.most_gated}

    def hold_for_load(self, patience_us):
        self.holds.append(("hold", patience_us))
        return 7

    def release_hold(self, hold):
        self.holds.append(("release", hold))

    def be_gate(self, max_us):
        self.gate_waits.append(max_us)
        return self.gate_result

    def time_begin(self, function, stream):
        self.timed.append(("begin", function, stream))
        return len(self.timed)

    def time_end(self, token, stream):
        self.timed.append(("end", token, stream))

    def kernel_time_us(self, function, samples=3):
        return self.time_result

    def remote_latency_critical(self, device=0):
        return self.remote

    def router_start(self):
        self.started = True

    def join_registry(self):
        self.joined = True
        return True

    def router_running(self):
        return self.started

    def _binding(self, name, variants):
        return {"name": name, "slice": "slice" in variants,
                "ptb": "ptb" in variants, "param_sizes": [],
                "own_module": False, "registers": self.registers}

    def function_epoch(self, function):
        return self.epochs.get(function, 0)

    def forget_function(self, function):
        self.forgotten.append(function)
        self.epochs[function] = self.epochs.get(function, 0) + 1

    def _check_epoch(self, function, epoch):
        if self.epochs.get(function, 0) != epoch:
            raise RuntimeError("the kernel was unloaded and its handle reused "
                               "while its variants were prepared")

    def bind(self, function, epoch):
        self._check_epoch(function, epoch)
        self.binds.append(function)
        return self._binding("k", ("slice", "ptb") if self.in_triton_cubin else ())

    def bind_image(self, function, image, name, epoch):
        self._check_epoch(function, epoch)
        self.images.append((function, image, name))
        if self.bind_errors:
            raise RuntimeError(self.bind_errors.pop(0))
        return self._binding(name, self.variants)

    def stream_capturing(self, stream):
        return self.capturing

    def submit(self, function, gx, gy, gz, block_x, shared, stream, params):
        if self.capture_on_submit:
            return False
        self.submits.append((function, gx, gy, gz, block_x, shared, stream,
                             params))
        return True

    def lc_touch(self, stream, sms, grace_us):
        if self.capturing:
            return False
        self.touches.append((stream, sms, grace_us))
        return True
