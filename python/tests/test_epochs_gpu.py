"""A CUfunction handle's epoch (python/src/Router.h): bind() and
bind_image() refuse a handle loaded again since the epoch the caller read,
and forget_function() drops what was bound and timed for it, pending
timings included. Kernels are
loaded through the driver directly (ctypes), as Triton loads them. Needs a
GPU; skipped, saying so, without one."""

import ctypes
import unittest

from baton import _core

from helpers import gpu_runtime_or_reason

PTX = (b".version 8.0\n.target sm_70\n.address_size 64\n"
       b".visible .entry reloaded(.param .u32 n) { ret; }\n")


class FunctionEpochTest(unittest.TestCase):
    def setUp(self):
        reason = gpu_runtime_or_reason(_core)
        if reason:
            self.skipTest(reason)
        self.cuda = ctypes.CDLL("libcuda.so.1")
        dev, ctx = ctypes.c_int(), ctypes.c_void_p()
        self.ok(self.cuda.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
        self.ok(self.cuda.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev),
                "cuDevicePrimaryCtxRetain")
        self.ok(self.cuda.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
        self.module = ctypes.c_void_p()
        self.ok(self.cuda.cuModuleLoadData(ctypes.byref(self.module),
                                           ctypes.c_char_p(PTX)),
                "cuModuleLoadData")
        function = ctypes.c_void_p()
        self.ok(self.cuda.cuModuleGetFunction(ctypes.byref(function),
                                              self.module, b"reloaded"),
                "cuModuleGetFunction")
        self.function = function.value

    def ok(self, result, what):
        self.assertEqual(result, 0, f"{what}: CUresult {result}")

    def launch_timed(self):
        token = _core.time_begin(self.function, 0)
        n = ctypes.c_uint32(1)
        params = (ctypes.c_void_p * 1)(ctypes.addressof(n))
        self.ok(self.cuda.cuLaunchKernel(
            ctypes.c_void_p(self.function), 1, 1, 1, 32, 1, 1, 0, None,
            params, None), "cuLaunchKernel")
        _core.time_end(token, 0)
        self.ok(self.cuda.cuCtxSynchronize(), "cuCtxSynchronize")

    def test_a_forgotten_handle_binds_only_at_its_new_epoch(self):
        epoch = _core.function_epoch(self.function)
        binding = _core.bind(self.function, epoch)
        self.assertEqual(binding["name"], "reloaded")
        self.assertEqual(binding["param_sizes"], [4])
        self.launch_timed()
        self.assertGreaterEqual(_core.kernel_time_us(self.function, 1), 0)
        self.launch_timed()  # a sample still pending when forgotten
        _core.time_begin(self.function, 0)  # and one never ended
        _core.forget_function(self.function)
        self.assertEqual(_core.function_epoch(self.function), epoch + 1)
        # The binding and the timings went with it.
        self.assertEqual(_core.kernel_time_us(self.function, 1), -1)
        with self.assertRaisesRegex(RuntimeError, "not bound"):
            _core.submit(self.function, 1, 1, 1, 32, 0, 0, b"\0\0\0\0")
        with self.assertRaisesRegex(RuntimeError, "handle reused"):
            _core.bind(self.function, epoch)
        with self.assertRaisesRegex(RuntimeError, "handle reused"):
            _core.bind_image(self.function, b"not read", "reloaded", epoch)
        again = _core.bind(self.function, epoch + 1)
        self.assertEqual(again["name"], "reloaded")


if __name__ == "__main__":
    unittest.main()
