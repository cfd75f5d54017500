"""The bypass gate (python/src/BypassGate.h): a kernel launched by a
best-effort thread, not through Baton, does not start while a
latency-critical bracket of the process is open, starts when it closes,
and is held no longer than the gate's bound; a latency-critical thread's
kernel is not held. The kernel is launched through the driver directly
(ctypes), as a library such as cuBLAS would. Needs a GPU for the device
half; skipped, saying so, without one."""

import json
import os
import subprocess
import sys
import unittest

from baton import _core

from helpers import gpu_runtime_or_reason

MAX_HOLD_MS = 150

# A process of its own: the gate is one per process, and CUPTI allows one
# subscriber.
CHILD = r"""
import ctypes, json, threading, time
from baton import _core

cuda = ctypes.CDLL("libcuda.so.1")
def ok(r, what):
    if r != 0:
        raise RuntimeError(f"{what}: CUresult {r}")

_core.router_start()
out = {"why": _core.bypass_gate_start("", MAX_HOLD_MS * 1000.0)}
dev, ctx = ctypes.c_int(), ctypes.c_void_p()
ok(cuda.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
ok(cuda.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), "retain")
ok(cuda.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
ptx = b'''.version 8.0
.target sm_70
.address_size 64
.visible .entry nothing() { ret; }
'''
module, function, stream = ctypes.c_void_p(), ctypes.c_void_p(), ctypes.c_void_p()
ok(cuda.cuModuleLoadData(ctypes.byref(module), ctypes.c_char_p(ptx)), "load")
ok(cuda.cuModuleGetFunction(ctypes.byref(function), module, b"nothing"), "get")
ok(cuda.cuStreamCreate(ctypes.byref(stream), 1), "cuStreamCreate")
cuda.cuStreamQuery.argtypes = [ctypes.c_void_p]
NOT_READY = 600

def launch():
    ok(cuda.cuLaunchKernel(function, 1, 1, 1, 1, 1, 1, 0, stream, None,
                           None), "cuLaunchKernel")

def done():
    return cuda.cuStreamQuery(stream) != NOT_READY

def drain():
    ok(cuda.cuStreamSynchronize(stream), "cuStreamSynchronize")

me = threading.get_ident()
_core.bypass_gate_thread_class(me, "best-effort")
bracket = _core.lc_begin(0)
launch()
time.sleep(0.05)
out["held_in_bracket"] = not done()
_core.lc_end(bracket)
start = time.monotonic()
drain()
out["ran_after_close_s"] = time.monotonic() - start

bracket = _core.lc_begin(0)
launch()
time.sleep(MAX_HOLD_MS / 1000.0 * 3)
out["ran_past_bound"] = done()
_core.lc_end(bracket)
drain()

_core.bypass_gate_thread_class(me, "latency-critical")
bracket = _core.lc_begin(0)
launch()
time.sleep(0.05)
out["lc_not_held"] = done()
_core.lc_end(bracket)
drain()
out["stats"] = _core.bypass_gate_stats()
print(json.dumps(out))
""".replace("MAX_HOLD_MS", str(MAX_HOLD_MS))


class BypassGateApiTest(unittest.TestCase):
    """What needs no GPU: the bindings and their checks."""

    def setUp(self):
        if not getattr(_core, "HAS_BYPASS_GATE", False):
            self.skipTest("baton._core was built without the bypass gate "
                          "(no runtime or no CUPTI headers)")

    def test_off_until_started(self):
        stats = _core.bypass_gate_stats()
        self.assertFalse(stats["on"])
        self.assertTrue(stats["why_off"])

    def test_thread_classes_are_checked(self):
        _core.bypass_gate_thread_class(1, "best-effort")
        _core.bypass_gate_thread_class(1, "none")
        with self.assertRaises(ValueError):
            _core.bypass_gate_thread_class(1, "training")
        with self.assertRaises(ValueError):
            _core.bypass_gate_default_class("urgent")


class BypassGateGpuTest(unittest.TestCase):
    def setUp(self):
        if not getattr(_core, "HAS_BYPASS_GATE", False):
            self.skipTest("baton._core was built without the bypass gate")
        reason = gpu_runtime_or_reason(_core)
        if reason:
            self.skipTest(reason)

    def test_best_effort_kernels_wait_for_the_bracket_and_no_longer(self):
        env = dict(os.environ, BATON_SHARE="0")
        child = subprocess.run([sys.executable, "-c", CHILD], env=env,
                               capture_output=True, text=True, timeout=60)
        self.assertEqual(child.returncode, 0, child.stderr)
        out = json.loads(child.stdout.strip().splitlines()[-1])
        self.assertEqual(out["why"], "", out)
        self.assertTrue(out["held_in_bracket"], out)
        self.assertLess(out["ran_after_close_s"], 0.05, out)
        self.assertTrue(out["ran_past_bound"], out)
        self.assertTrue(out["lc_not_held"], out)
        stats = out["stats"]
        self.assertEqual(stats["gated"], 2, out)
        self.assertEqual(stats["holds"], 3, out)
        self.assertEqual(stats["expired"], 1, out)


if __name__ == "__main__":
    unittest.main()
