"""baton.triton's plumbing against a stand-in for Triton 3.6 (helpers.py):
the launcher and hooks are installed and removed, launches pass through or
are routed with the right bytes, variants are found or built, refusals and
unroutable kernels pass through and are reported."""

import contextlib
import io
import os
import re
import struct
import sys
import tempfile
import threading
import time
import types
import unittest
from pathlib import Path
from unittest import mock

import baton
import baton.triton as bt
from baton import _core

from helpers import (CORPUS, FakeCore, FakeCudaLauncher, FakeTool, TempCache,
                     assert_no_stand_ins, install_fake_triton, ptxas)

FUNCTION = 0xF00
VECTOR_ADD_SIG = {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32",
                  "n_elements": "i32", "BLOCK_SIZE": "constexpr"}


def metadata(name="vector_add_kernel", **overrides):
    md = dict(name=name, num_warps=4, shared=0, num_ctas=1,
              launch_cooperative_grid=False, launch_pdl=False,
              global_scratch_size=0, global_scratch_align=1,
              profile_scratch_size=0, profile_scratch_align=1,
              target=types.SimpleNamespace(arch=90), enable_fp_fusion=True,
              ptx_options=None, tensordesc_meta=None)
    md.update(overrides)
    return types.SimpleNamespace(**md)


class Tensor:
    def __init__(self, ptr):
        self.ptr = ptr

    def data_ptr(self):
        return self.ptr


class HookRecorder:
    def __init__(self):
        self.calls = []

    def __call__(self, launch_metadata):
        self.calls.append(launch_metadata)


def tearDownModule():
    assert_no_stand_ins()


class TritonHooksTest(unittest.TestCase):
    def setUp(self):
        self.modules, self.restore = install_fake_triton(ptxas())
        self.core = FakeCore(_core)
        self.real_core = bt._core
        bt._core = self.core
        self.real_assemble = bt.assemble
        self.assembled = []
        self.gate = threading.Event()
        self.gate.set()

        def fake_assemble(ptx, arch, enable_fp_fusion=True, ptx_options=None,
                          cache=None, instrumentation_mode=""):
            self.gate.wait(60)
            self.assembled.append((ptx, arch, enable_fp_fusion, ptx_options))
            return b"\x7fELF fake cubin"

        bt.assemble = fake_assemble
        self.cache_ctx = TempCache()
        self.cache = self.cache_ctx.__enter__()
        bt._reset()
        bt._STATE.min_route_us = 0  # route every kernel (timing: its own test)
        bt.install(cache=self.cache)
        FakeCudaLauncher.launches = []
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        bt.uninstall()
        bt._reset()
        bt._core = self.real_core
        bt.assemble = self.real_assemble
        self.cache_ctx.__exit__(None, None, None)
        self.restore()
        self.tmp.cleanup()

    # helpers
    def driver(self):
        return self.modules["triton.runtime"].driver.active

    def load(self, name="vector_add_kernel", ptx_file="vector_add.ptx",
             function=FUNCTION, module=None, **md):
        """What CompiledKernel._init_handles does: make the launcher, call
        the start hook, load, call the end hook."""
        src = types.SimpleNamespace(signature=dict(VECTOR_ADD_SIG))
        launcher = self.driver().launcher_cls(src, metadata(name, **md))
        self.modules["triton.knobs"].runtime.kernel_load_start_hook(
            None, None, name, {}, "h")
        files = {}
        if ptx_file:
            path = Path(self.tmp.name) / f"{name}.ptx"
            path.write_text((CORPUS / "triton" / ptx_file).read_text()
                            if "/" not in ptx_file else Path(ptx_file).read_text())
            files[f"{name}.ptx"] = str(path)
        files[f"{name}.json"] = "/nonexistent.json"
        knobs = self.modules["triton.knobs"]
        knobs.runtime.kernel_load_end_hook(module, function, name, files, "h")
        return launcher

    def launch(self, launcher, n=1000003, enter=None, exit=None, stream=0x55,
               grid=(977, 1, 1)):
        args = (Tensor(0x1000), Tensor(0x2000), Tensor(0x3000), n, 1024)
        launcher(*grid, stream, FUNCTION, ("packed",), "launch-md", enter, exit,
                 *args)
        return args

    def wait(self):
        bt.prepare_loaded(wait=True, timeout=60)

    def first_launch(self, launcher):
        """The first routed launch, while its variants are being prepared:
        it passes through; then waits for the preparation."""
        self.gate.clear()
        self.launch(launcher)
        self.gate.set()
        self.wait()

    # tests
    def test_install_and_uninstall(self):
        self.assertIs(self.driver().launcher_cls, bt.BatonLauncher)
        knobs = self.modules["triton.knobs"]
        self.assertIn(bt._load_hook, knobs.runtime.kernel_load_end_hook.calls)
        self.assertIsNone(knobs.runtime.add_stages_inspection_hook)
        bt.install(cache=self.cache)  # idempotent
        self.assertIs(self.driver().launcher_cls, bt.BatonLauncher)
        bt.uninstall()
        self.assertIs(self.driver().launcher_cls, FakeCudaLauncher)
        self.assertEqual(knobs.runtime.kernel_load_end_hook.calls, [])
        bt.install(cache=self.cache)

    def test_a_load_holds_routed_work_back_until_it_ends(self):
        knobs = self.modules["triton.knobs"]
        self.assertIn(bt._load_start_hook,
                      knobs.runtime.kernel_load_start_hook.calls)
        self.core.holds.clear()
        self.core.started = False
        self.load()  # no router yet: nothing can wait paused
        self.assertEqual(self.core.holds, [])
        self.core.started = True
        self.load()
        self.assertEqual(self.core.holds, [("hold", 1e5), ("release", 7)])

    def test_a_load_that_raised_is_released_at_the_next_launch(self):
        knobs = self.modules["triton.knobs"]
        launcher = self.load()
        self.core.started = True
        self.core.holds.clear()
        knobs.runtime.kernel_load_start_hook(None, None, "k", {}, "h")
        # load_binary raised: no end hook.
        self.assertEqual(self.core.holds, [("hold", 1e5)])
        self.launch(launcher)
        self.assertEqual(self.core.holds, [("hold", 1e5), ("release", 7)])

    def test_a_hold_left_by_a_load_expires(self):
        knobs = self.modules["triton.knobs"]
        self.core.started = True
        self.core.holds.clear()
        lease = bt._LOAD_HOLD_LEASE_S
        bt._LOAD_HOLD_LEASE_S = 0.05
        try:
            # On a thread that never launches again: only the lease ends it.
            thread = threading.Thread(
                target=knobs.runtime.kernel_load_start_hook,
                args=(None, None, "k", {}, "h"))
            thread.start()
            thread.join()
            deadline = time.monotonic() + 5
            while len(self.core.holds) < 2 and time.monotonic() < deadline:
                time.sleep(0.01)
        finally:
            bt._LOAD_HOLD_LEASE_S = lease
        self.assertEqual(self.core.holds, [("hold", 1e5), ("release", 7)])

    def test_uninstall_releases_every_threads_holds(self):
        knobs = self.modules["triton.knobs"]
        self.core.started = True
        self.core.holds.clear()
        thread = threading.Thread(target=knobs.runtime.kernel_load_start_hook,
                                  args=(None, None, "k", {}, "h"))
        thread.start()
        thread.join()
        bt.uninstall()
        self.assertEqual(self.core.holds, [("hold", 1e5), ("release", 7)])
        bt.install(cache=self.cache)

    def test_a_binding_that_fails_leaves_the_kernel_unrouted(self):
        launcher = self.load()
        bt.set_routing(True)
        self.core.bind_errors = ["the module could not be loaded (test)"]
        self.first_launch(launcher)
        kernel = bt._STATE.kernels[FUNCTION]
        self.assertEqual(kernel.state, "none")
        self.assertIn("could not be loaded (test)", kernel.reason)
        self.launch(launcher)
        self.assertEqual(self.core.submits, [])
        self.assertEqual(len(self.core.images), 1)  # not asked for again

    def test_a_handle_loaded_again_forgets_the_kernel_it_named(self):
        launcher = self.load()
        bt.set_routing(True)
        self.first_launch(launcher)
        self.assertEqual(bt._STATE.kernels[FUNCTION].state, "ready")
        # Triton unloaded that kernel; another load reuses its CUfunction.
        other = self.load()
        self.assertEqual(self.core.forgotten, [FUNCTION])
        self.assertNotIn(FUNCTION, bt._STATE.kernels)
        self.first_launch(other)
        kernel = bt._STATE.kernels[FUNCTION]
        self.assertEqual((kernel.state, kernel.epoch), ("ready", 1))
        self.assertEqual(len(self.core.images), 2)  # bound afresh
        self.launch(other)
        self.assertEqual(len(self.core.submits), 1)

    def test_a_preparation_for_an_unloaded_kernel_cannot_bind(self):
        launcher = self.load()
        bt.set_routing(True)
        self.gate.clear()  # the preparation waits in assembly
        self.launch(launcher)
        stale = bt._STATE.kernels[FUNCTION]
        self.load()  # meanwhile the handle names another kernel
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            self.gate.set()
            stale.future.result(60)
        self.assertEqual(stale.state, "none")
        self.assertIn("handle reused", stale.reason)
        self.assertEqual(self.core.images, [])  # nothing bound for it
        self.assertNotIn("handle reused", err.getvalue())  # not the user's
        self.assertNotIn(FUNCTION, bt._STATE.kernels)

    def test_an_unloaded_kernel_is_forgotten_before_its_module_goes(self):
        # Triton 3.8 unloads the module of a kernel nobody holds, calling
        # its kernel_unload_hook first.
        knobs = self.modules["triton.knobs"]
        launcher = self.load()
        bt.set_routing(True)
        self.first_launch(launcher)
        self.assertEqual(bt._STATE.kernels[FUNCTION].state, "ready")
        knobs.runtime.kernel_unload_hook(0x77, FUNCTION, "vector_add_kernel",
                                         {}, "h")
        self.assertEqual(self.core.forgotten, [FUNCTION])
        self.assertNotIn(FUNCTION, bt._STATE.kernels)
        bt.uninstall()
        self.assertEqual(knobs.runtime.kernel_unload_hook.calls, [])
        bt.install(cache=self.cache)

    def test_a_launcher_that_outlived_its_kernel_prepares_nothing(self):
        old = self.load()
        bt.set_routing(False)
        self.launch(old)  # seen, not prepared
        self.load(name="other_kernel")  # the handle names another kernel
        self.assertEqual(bt.prepare_loaded(wait=True, timeout=60), 0)
        self.assertNotIn(FUNCTION, bt._STATE.kernels)

    def test_uninstall_removes_the_start_hook(self):
        knobs = self.modules["triton.knobs"]
        bt.uninstall()
        self.assertEqual(knobs.runtime.kernel_load_start_hook.calls, [])
        bt.install(cache=self.cache)

    def test_compile_hook_chains_the_previous_one(self):
        knobs = self.modules["triton.knobs"]
        bt.uninstall()
        seen = []
        knobs.runtime.add_stages_inspection_hook = (
            lambda *a: seen.append(a[-1]))
        previous = knobs.runtime.add_stages_inspection_hook
        bt.install(compile_hook=True, cache=self.cache)
        self.assertIs(knobs.runtime.add_stages_inspection_hook, bt.stage_hook)
        ptx = (CORPUS / "triton" / "softmax.ptx").read_text()
        stages = {"ptx": lambda src, md: ptx, "cubin": lambda src, md: b""}
        knobs.runtime.add_stages_inspection_hook(None, stages, None, None, 90)
        self.assertEqual(seen, [90])
        out = stages["ptx"]("ir", {"name": "softmax_kernel"})
        self.assertIn(".entry softmax_kernel__baton_ptb(", out)
        self.assertIn(".entry softmax_kernel(", out)
        self.assertEqual(bt._STATE.compiled["softmax_kernel"][0],
                         ("slice", "ptb"))
        # A PTX the transform cannot read is compiled as it is.
        stages = {"ptx": lambda src, md: "not ptx {"}
        bt.stage_hook(None, stages, None, None, 90)
        self.assertEqual(stages["ptx"]("ir", {"name": "k"}), "not ptx {")
        bt.uninstall()
        self.assertIs(knobs.runtime.add_stages_inspection_hook, previous)
        bt.install(cache=self.cache)

    def test_compile_hook_keys_triton_s_cache(self):
        # Triton 3.7 and later call the hook with no arguments for a part of
        # their cache keys, at every launch; a previous hook's part comes
        # first.
        knobs = self.modules["triton.knobs"]
        bt.uninstall()

        def previous(*args):
            return ("theirs-", "h") if not args else None
        knobs.runtime.add_stages_inspection_hook = previous
        bt.install(compile_hook=True, cache=self.cache)
        key, digest = knobs.runtime.add_stages_inspection_hook()
        self.assertEqual(key, "theirs-baton-variants-" + baton.transformer_id())
        self.assertRegex(digest, "^[0-9a-f]{64}$")
        self.assertIs(bt.stage_hook(), bt.stage_hook())  # worked out once
        bt.uninstall()
        bt.install(cache=self.cache)

    def test_pass_through_when_not_routed(self):
        launcher = self.load()
        enter, exit = HookRecorder(), HookRecorder()
        args = self.launch(launcher, enter=enter, exit=exit)
        (launch,) = FakeCudaLauncher.launches
        self.assertEqual(launch, (977, 1, 1, 0x55, FUNCTION,
                                  (("packed",), "launch-md", enter, exit, *args)))
        self.assertEqual(self.core.submits, [])
        self.assertEqual(bt._STATE.kernels, {})  # nothing prepared
        self.assertEqual(launcher.passed, 1)

    def test_routed_launch_submits_packed_arguments(self):
        launcher = self.load()
        bt.set_routing(True)
        self.assertTrue(self.core.started)
        self.gate.clear()  # hold the preparation: the launch must not wait
        self.launch(launcher)
        self.assertEqual(len(FakeCudaLauncher.launches), 1)
        self.assertEqual(bt._STATE.kernels[FUNCTION].state, "pending")
        self.gate.set()
        self.wait()
        kernel = bt._STATE.kernels[FUNCTION]
        self.assertEqual(kernel.state, "ready", kernel.reason)
        self.assertEqual(kernel.source, "baton-cubin")
        (ptx, arch, fma, opts), = self.assembled
        self.assertIn(".entry vector_add_kernel__baton_ptb(", ptx)
        self.assertEqual((arch, fma, opts), (90, True, None))
        self.assertEqual(self.core.images[0][1:], (b"\x7fELF fake cubin",
                                                   "vector_add_kernel"))
        enter, exit = HookRecorder(), HookRecorder()
        self.launch(launcher, n=77, enter=enter, exit=exit)
        self.assertEqual(len(FakeCudaLauncher.launches), 1)
        (sub,) = self.core.submits
        self.assertEqual(sub[:7], (FUNCTION, 977, 1, 1, 128, 0, 0x55))
        self.assertEqual(sub[7], struct.pack("<QQQiQQ", 0x1000, 0x2000, 0x3000,
                                             77, 0, 0))
        self.assertEqual((enter.calls, exit.calls), (["launch-md"], ["launch-md"]))
        self.assertEqual((launcher.scheduled, launcher.passed), (1, 1))
        (entry,) = bt.kernels()
        self.assertEqual((entry["state"], entry["variants"], entry["scheduled"]),
                         ("ready", ("slice", "ptb"), 1))

    def test_variants_keep_the_originals_occupancy(self):
        # 26 registers, 128 threads: 16 blocks per SM up to 32 registers.
        # 36 are allocated as 40 (12 blocks; 48 would fit 10).
        # BATON_FIT_REGISTERS=0 leaves the variants unlimited.
        for registers, env, maxnreg in ((26, None, ".maxnreg 32"),
                                        (36, None, ".maxnreg 40"),
                                        (26, "0", None)):
            with self.subTest(registers=registers, env=env):
                self.core.registers = registers
                self.assembled.clear()
                bt._STATE.kernels.clear()
                old = os.environ.pop("BATON_FIT_REGISTERS", None)
                if env is not None:
                    os.environ["BATON_FIT_REGISTERS"] = env
                try:
                    launcher = self.load()
                    bt.set_routing(True)
                    self.first_launch(launcher)
                finally:
                    os.environ.pop("BATON_FIT_REGISTERS", None)
                    if old is not None:
                        os.environ["BATON_FIT_REGISTERS"] = old
                ptx = self.assembled[0][0]
                header = ptx[ptx.index(".entry vector_add_kernel__baton_ptb("):]
                header = header[:header.index("{")]
                (entry,) = bt.kernels()
                self.assertEqual(entry["maxnreg"],
                                 int(maxnreg.split()[1]) if maxnreg else None)
                if maxnreg:
                    self.assertIn(maxnreg, header)
                    self.assertEqual(ptx.count(maxnreg), 2)  # slice and PTB
                else:
                    self.assertNotIn(".maxnreg", ptx)

    def test_variants_from_triton_cubin_need_no_assembly(self):
        self.core.in_triton_cubin = True
        launcher = self.load()
        bt.set_routing(True)
        self.launch(launcher)
        self.wait()
        self.assertEqual(bt._STATE.kernels[FUNCTION].source, "triton-cubin")
        self.assertEqual(self.assembled, [])
        before = len(self.core.submits)  # the first launch may have raced
        self.launch(launcher)
        self.assertEqual(len(self.core.submits), before + 1)

    def test_refused_kernel_passes_through_and_says_why(self):
        launcher = self.load(name="smid_probe",
                             ptx_file=str(CORPUS / "nvcc" / "refuse_smid.ptx"))
        bt.set_routing(True)
        self.first_launch(launcher)
        self.launch(launcher)
        self.assertEqual(self.core.submits, [])
        self.assertEqual(len(FakeCudaLauncher.launches), 2)
        (entry,) = bt.kernels()
        self.assertEqual(entry["state"], "none")
        self.assertIn("hardware-id", entry["reason"])
        self.assertTrue(entry["refusals"])

    def test_no_ptx_kept(self):
        launcher = self.load(ptx_file=None)
        bt.set_routing(True)
        self.first_launch(launcher)
        self.assertIn("no PTX", bt.kernels()[0]["reason"])

    def test_unroutable_kernels(self):
        cases = {"num_ctas": (2, "clusters"),
                 "launch_cooperative_grid": (True, "cooperative"),
                 "launch_pdl": (True, "dependent launch")}
        bt.set_routing(True)
        for field, (value, words) in cases.items():
            with self.subTest(field=field):
                launcher = self.load(**{field: value})
                self.launch(launcher)
                self.assertIn(words, launcher.unroutable)
        self.assertEqual(self.core.submits, [])
        self.assertEqual(bt._STATE.kernels, {})

    def test_ptb_not_made_when_shared_memory_is_too_large(self):
        launcher = self.load(shared=232448 - 16)
        self.assertFalse(launcher.prepare_metadata["ptb_allowed"])
        bt.set_routing(True)
        self.first_launch(launcher)
        ptx = self.assembled[0][0]
        self.assertIn("__baton_slice(", ptx)
        self.assertNotIn("__baton_ptb(", ptx)

    def test_triton_cubin_with_a_ptb_too_large_is_rebuilt_slice_only(self):
        self.core.in_triton_cubin = True
        launcher = self.load(shared=232448 - 16)
        bt.set_routing(True)
        self.first_launch(launcher)
        kernel = bt._STATE.kernels[FUNCTION]
        self.assertEqual(kernel.source, "baton-cubin")
        self.assertNotIn("__baton_ptb(", self.assembled[0][0])

    def test_arguments_that_do_not_pack_pass_through(self):
        launcher = self.load()
        bt.set_routing(True)
        self.first_launch(launcher)
        launcher(977, 1, 1, 0, FUNCTION, ("p",), None, None, None,
                 "not a tensor", Tensor(1), Tensor(2), 5, 1024)
        self.assertEqual(self.core.submits, [])
        self.assertIn("do not pack", bt.kernels()[0]["reason"])

    def test_refused_submit_passes_through(self):
        launcher = self.load()
        bt.set_routing(True)
        self.first_launch(launcher)

        def refuse(*a):
            raise RuntimeError("no such kernel")

        self.core.submit = refuse
        self.launch(launcher)
        self.assertEqual(len(FakeCudaLauncher.launches), 2)
        self.assertIn("scheduler refused", bt.kernels()[0]["reason"])

    def test_latency_critical_threads_touch_and_pass_through(self):
        launcher = self.load()
        bt.set_routing(True, lc_sms=0, grace_us=150)
        bt.set_thread_class(bt.LATENCY_CRITICAL)
        try:
            self.launch(launcher, stream=0x99)
        finally:
            bt.clear_thread_class()
        self.assertEqual(self.core.touches, [(0x99, 0, 150.0)])
        self.assertEqual(len(FakeCudaLauncher.launches), 1)
        self.assertEqual(launcher.latency_critical, 1)
        # Other threads keep the default class (best-effort).
        done = []
        t = threading.Thread(target=lambda: done.append(self.launch(launcher)))
        t.start()
        t.join()
        self.assertEqual(len(self.core.touches), 1)

    def test_launches_into_a_capturing_stream_run_as_the_original(self):
        launcher = self.load()
        bt.set_routing(True, lc_sms=0, grace_us=150)
        self.first_launch(launcher)
        self.assertEqual(len(self.core.submits), 0)   # first: preparing
        self.core.capturing = True
        # Best-effort: captured as the original, not submitted, not timed.
        bt._STATE.min_route_us = 30
        self.launch(launcher)
        self.assertEqual((self.core.submits, self.core.timed), ([], []))
        # Latency-critical: captured without a bracket.
        bt.set_thread_class(bt.LATENCY_CRITICAL)
        try:
            self.launch(launcher, stream=0x99)
        finally:
            bt.clear_thread_class()
        self.assertEqual(self.core.touches, [])
        self.assertEqual(launcher.captured, 2)
        self.assertEqual(len(FakeCudaLauncher.launches), 3)
        # Once the capture has ended, launches are routed again.
        self.core.capturing = False
        bt._STATE.min_route_us = 0
        self.launch(launcher)
        self.assertEqual(len(self.core.submits), 1)
        (entry,) = bt.kernels()
        self.assertEqual((entry["captured"], entry["scheduled"],
                          entry["state"]), (2, 1, "ready"))

    def test_submit_that_finds_the_stream_capturing_passes_through(self):
        launcher = self.load()
        bt.set_routing(True)
        self.first_launch(launcher)
        self.core.capture_on_submit = True
        enter, exit = HookRecorder(), HookRecorder()
        self.launch(launcher, enter=enter, exit=exit)
        self.assertEqual(len(FakeCudaLauncher.launches), 2)
        self.assertEqual((launcher.scheduled, launcher.captured), (0, 1))
        # Both hooks once around the submit that issued nothing; the launch
        # that passed through (FakeCudaLauncher) holds them for its own.
        self.assertEqual((enter.calls, exit.calls), (["launch-md"], ["launch-md"]))
        # Not a refusal: the kernel stays routable.
        self.core.capture_on_submit = False
        self.launch(launcher)
        self.assertEqual(launcher.scheduled, 1)
        self.assertEqual(bt.kernels()[0]["reason"], "")

    def test_short_kernels_are_timed_then_not_routed(self):
        bt._STATE.min_route_us = 30
        launcher = self.load()
        bt.set_routing(True)
        self.first_launch(launcher)          # timed 1
        for _ in range(2):                   # timed 2, 3
            self.launch(launcher)
        self.assertEqual([t[0] for t in self.core.timed],
                         ["begin", "end"] * 3)
        self.launch(launcher)                # samples still on the GPU
        self.assertEqual(len(self.core.timed), 6)
        self.core.time_result = 12.5         # measured: short
        self.launch(launcher)
        self.launch(launcher)
        self.assertEqual(self.core.submits, [])
        self.assertEqual((launcher.short, launcher.time_us), (2, 12.5))
        self.assertEqual(len(FakeCudaLauncher.launches), 6)
        # Short for the bypass gate too; told once.
        self.assertEqual(self.core.short_calls, [("short", FUNCTION, 12.5)])
        # Routing's threshold lowered below it: no longer short for either.
        bt.set_routing(True, min_route_us=10)
        self.assertEqual(self.core.short_budgets, [10.0])
        self.launch(launcher)
        self.assertEqual(self.core.short_calls[1:], [("not short", FUNCTION)])
        self.assertEqual(len(self.core.submits), 1)
        (entry,) = bt.kernels()
        self.assertEqual((entry["short"], entry["time_us"]), (2, 12.5))

    def test_long_kernels_are_routed_after_timing(self):
        bt._STATE.min_route_us = 30
        launcher = self.load()
        bt.set_routing(True)
        self.first_launch(launcher)
        self.core.time_result = 250.0
        self.launch(launcher)
        self.assertEqual(len(self.core.submits), 1)
        self.assertEqual(launcher.time_us, 250.0)
        self.assertEqual(self.core.short_calls, [])  # gated if unrouted

    def test_best_effort_launches_wait_for_open_brackets(self):
        launcher = self.load()
        bt.set_routing(True)
        self.core.gate_result = 0.0
        self.first_launch(launcher)
        self.assertEqual(self.core.gate_waits, [100000.0])
        self.core.gate_result = 350.0        # a bracket was open
        self.launch(launcher)
        self.assertEqual(launcher.held, 1)
        bt._STATE.gate_max_us = 0            # BATON_BE_GATE_MAX_MS=0
        self.launch(launcher)
        self.assertEqual(len(self.core.gate_waits), 2)
        # Not routed (schedule off): no gate.
        bt.set_routing(False)
        self.launch(launcher)
        self.assertEqual(len(self.core.gate_waits), 2)

    def test_grid_of_zero_blocks_is_triton_s_business(self):
        launcher = self.load()
        bt.set_routing(True)
        self.launch(launcher, grid=(0, 1, 1))
        self.assertEqual(len(FakeCudaLauncher.launches), 1)
        self.assertEqual(bt._STATE.kernels, {})


@unittest.skipUnless(ptxas(), "ptxas not found: assembly not checked")
class AssembleTest(unittest.TestCase):
    def setUp(self):
        self.modules, self.restore = install_fake_triton(ptxas())

    def tearDown(self):
        self.restore()

    def test_assemble_is_cached_by_content(self):
        ptx = baton.transform_ptx(
            (CORPUS / "triton" / "bias_relu_2d.ptx").read_text(), cache=False).ptx
        with TempCache() as cache:
            cubin = bt.assemble(ptx, 90, True, None, cache=cache)
            self.assertEqual(cubin[:4], b"\x7fELF")
            self.assertEqual(cache.writes, 1)
            self.assertEqual(bt.assemble(ptx, 90, True, None, cache=cache), cubin)
            self.assertEqual(cache.hits, 1)
            # Other ptxas options are another entry.
            bt.assemble(ptx, 90, False, None, cache=cache)
            self.assertEqual(cache.writes, 2)

    def test_ptx_newer_than_triton_s_ptxas_finds_one_that_accepts_it(self):
        # Triton's ptxas answers 12.8 (PTX 8.7 at most), the kernel was
        # lowered elsewhere for CUDA 13's: TRITON_PTXAS_PATH assembles it.
        compiler = sys.modules["triton.backends.nvidia.compiler"]
        compiler.get_ptxas = lambda arch: FakeTool("/nonexistent/ptxas", "12.8")
        ptx = baton.transform_ptx(
            (CORPUS / "triton" / "bias_relu_2d.ptx").read_text(), cache=False).ptx
        ptx = re.sub(r"\.version \d+\.\d+", ".version 9.0", ptx, count=1)
        with TempCache() as cache, mock.patch.dict(os.environ, TRITON_PTXAS_PATH=ptxas()):
            self.assertEqual(bt._ptxas_for(90, ptx).path, ptxas())
            self.assertEqual(bt.assemble(ptx, 90, cache=cache)[:4], b"\x7fELF")

    def test_ptx_no_ptxas_accepts_is_reported(self):
        with TempCache() as cache, mock.patch.dict(os.environ, TRITON_PTXAS_PATH=ptxas()):
            with self.assertRaises(RuntimeError) as cm:
                bt.assemble(".version 99.0\n.target sm_90a\n.address_size 64\n",
                            90, cache=cache)
        self.assertIn("no ptxas accepts the kernel's PTX .version 99.0",
                      str(cm.exception))
        self.assertIn("TRITON_PTXAS_PATH", str(cm.exception))

    def test_ptxas_failure_is_reported(self):
        with TempCache() as cache:
            with self.assertRaises(RuntimeError) as cm:
                bt.assemble(".version 8.7\n.target sm_90a\n.address_size 64\n"
                            ".visible .entry k() { bogus; }", 90, cache=cache)
            self.assertIn("ptxas failed", str(cm.exception))


if __name__ == "__main__":
    unittest.main()
