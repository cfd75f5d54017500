"""baton.torch without PyTorch: enable()/disable() against stand-ins for
the parts of torch they touch (Inductor's config, SDPA switches, streams)
and for Triton; the routing decisions, thread classes, settings applied and
restored, and the kernel classification of the bypass report."""

import contextlib
import io
import os
import threading
import types
import unittest
from unittest import mock

import baton.torch as btorch
import baton.triton as bt
from baton import _core, _gemm

from helpers import (FakeCore, TempCache, assert_no_stand_ins,
                     install_fake_triton, swap_modules)


class ExternKernelCaller:
    pass


class TritonTemplateCaller:
    pass


class Node:
    """An Inductor buffer as _gemm reads it."""

    def __init__(self, *size, dtype="bf16"):
        self.size, self.dtype = size, dtype

    def get_size(self):
        return self.size

    def get_dtype(self):
        return self.dtype


def candidate(cls, *inputs, out):
    """A GEMM candidate of class `cls` over `inputs` with output size `out`."""
    c = cls()
    c.input_nodes = list(inputs)
    c.layout = types.SimpleNamespace(size=list(out))
    return c


def product(m, n, k):
    """An ATen and a Triton candidate of an m x k by k x n product."""
    a, b = Node(m, k), Node(k, n)
    return [candidate(ExternKernelCaller, a, b, out=(m, n)),
            candidate(TritonTemplateCaller, a, b, out=(m, n))]


def fake_torch():
    torch = types.ModuleType("torch")
    inductor = types.ModuleType("torch._inductor")
    config = types.ModuleType("torch._inductor.config")
    config.use_static_cuda_launcher = True
    config.max_autotune_gemm = False
    config.max_autotune_gemm_backends = "ATEN,TRITON,CPP"
    config.max_autotune_conv_backends = "ATEN,TRITON"
    config.triton = types.SimpleNamespace(cudagraphs=False)
    select = types.ModuleType("torch._inductor.select_algorithm")
    select.ExternKernelCaller = ExternKernelCaller
    select.preprocessing = []
    select.add_preprocessing_fn = select.preprocessing.append
    inductor.config, inductor.select_algorithm = config, select

    # Library calls (the latency-critical warm-up), with the stream current
    # when each was made.
    calls = []

    class Stream:
        made = []

        def __init__(self, priority=0):
            self.priority = priority
            Stream.made.append(self)

        @staticmethod
        def priority_range():
            return (0, -5)

        def synchronize(self):
            calls.append(("synchronize", None, self))

    current = {"stream": Stream()}

    class Tensor:
        def __init__(self, dtype):
            self.dtype = dtype

        def __getitem__(self, index):
            return self

    def library_call(name):
        return lambda x, *rest: calls.append((name, x.dtype, current["stream"]))

    torch.float32, torch.float16, torch.bfloat16 = "f32", "f16", "bf16"
    torch.no_grad = contextlib.nullcontext
    torch.ones = lambda *shape, device=None, dtype="f32": Tensor(dtype)
    torch.mm = library_call("mm")
    torch.nn = types.SimpleNamespace(functional=types.SimpleNamespace(
        linear=library_call("linear"), conv2d=library_call("conv2d")))
    torch._calls = calls
    cuda = types.SimpleNamespace(
        is_initialized=lambda: False, Stream=Stream,
        current_stream=lambda: current["stream"],
        set_stream=lambda s: current.update(stream=s))
    sdp = {"flash": True, "mem": True, "cudnn": True}
    backends_cuda = types.SimpleNamespace(
        flash_sdp_enabled=lambda: sdp["flash"],
        mem_efficient_sdp_enabled=lambda: sdp["mem"],
        cudnn_sdp_enabled=lambda: sdp["cudnn"],
        enable_flash_sdp=lambda v: sdp.update(flash=v),
        enable_mem_efficient_sdp=lambda v: sdp.update(mem=v),
        enable_cudnn_sdp=lambda v: sdp.update(cudnn=v))
    torch.cuda, torch._inductor = cuda, inductor
    torch.backends = types.SimpleNamespace(
        cuda=backends_cuda,
        cudnn=types.SimpleNamespace(is_available=lambda: True, enabled=True))
    torch._sdp, torch._current = sdp, current
    return {"torch": torch, "torch._inductor": inductor,
            "torch._inductor.config": config,
            "torch._inductor.select_algorithm": select}


def tearDownModule():
    assert_no_stand_ins()


class TorchPlumbingTest(unittest.TestCase):
    def setUp(self):
        self.mods = fake_torch()
        self.restore_torch = swap_modules("torch", self.mods)
        self.torch = self.mods["torch"]
        self.config = self.mods["torch._inductor.config"]
        self.triton_mods, self.restore_triton = install_fake_triton()
        self.core = FakeCore(_core)
        self.core.stats = lambda: {"best_effort": 0}
        self.core.synchronize = lambda: None
        self.core.lc_begin = lambda sms: 42
        self.core.lc_end = lambda work: self.ended.append(work)
        self.ended = []
        self.saved_cores = (bt._core, btorch._core, _gemm._core)
        bt._core = btorch._core = _gemm._core = self.core
        self.cache_ctx = TempCache()
        self.cache_ctx.__enter__()
        bt._reset()
        btorch._S = btorch._State()
        btorch._S.exit_registered = True  # no atexit handler from tests
        self.env = mock.patch.dict(os.environ, {}, clear=False)
        self.env.start()
        for k in ("CUDA_MODULE_LOADING", "CUDA_DEVICE_MAX_CONNECTIONS",
                  "BATON_TORCH", "BATON_TORCH_SCHEDULE", "BATON_LC_GRACE_US",
                  "BATON_TORCH_MATMULS", "BATON_LC_WARM_UP",
                  "BATON_TORCH_LONG_GEMM_US", "BATON_BYPASS_GATE",
                  "BATON_BE_GATE_MAX_MS", "BATON_BYPASS_GATE_IDLE_MS"):
            os.environ.pop(k, None)
        os.environ["BATON_SHARE"] = "0"  # no registry watcher thread

    def tearDown(self):
        bt.uninstall()
        bt._reset()
        btorch._S = btorch._State()
        bt._core, btorch._core, _gemm._core = self.saved_cores
        _gemm.configure(None)
        _gemm.decisions.clear()
        _gemm._rates.clear()
        self.env.stop()
        self.cache_ctx.__exit__(None, None, None)
        self.restore_triton()
        self.restore_torch()

    def test_best_effort_alone_is_not_routed(self):
        btorch.enable("best-effort")
        self.assertTrue(bt.installed())
        self.assertFalse(bt._STATE.route_be)  # auto: no latency-critical client
        self.assertFalse(self.core.joined)    # no latency-critical member
        self.assertEqual(self.config.use_static_cuda_launcher, False)
        self.assertEqual(self.config.max_autotune_gemm, True)
        self.assertEqual(self.config.max_autotune_gemm_backends, "ATEN,TRITON")
        self.assertEqual(self.mods["torch._inductor.select_algorithm"].preprocessing,
                         [_gemm.prefer])
        self.assertEqual(os.environ["CUDA_MODULE_LOADING"], "EAGER")
        self.assertEqual(os.environ["CUDA_DEVICE_MAX_CONNECTIONS"], "32")
        self.assertEqual(bt._STATE.default_class, bt.BEST_EFFORT)
        btorch.disable()
        self.assertFalse(bt.installed())
        self.assertEqual(self.config.use_static_cuda_launcher, True)
        self.assertEqual(self.config.max_autotune_gemm, False)
        self.assertEqual(self.config.max_autotune_gemm_backends, "ATEN,TRITON,CPP")

    def test_latency_critical_client_turns_routing_on(self):
        btorch.enable("best-effort")
        seen = {}

        def inference():
            btorch.enable("latency-critical", slo_ms=5, grace_us=300)
            seen["class"] = bt._STATE.thread_class[threading.get_ident()]
            seen["routing"] = bt._STATE.route_be
            seen["stream"] = self.torch.cuda.current_stream()
            btorch.disable()
            seen["after"] = bt._STATE.route_be

        t = threading.Thread(target=inference)
        t.start()
        t.join()
        self.assertEqual(seen["class"], bt.LATENCY_CRITICAL)
        self.assertTrue(seen["routing"])
        self.assertEqual(seen["stream"].priority, -5)  # the highest priority
        self.assertFalse(seen["after"])
        self.assertEqual(bt._STATE.grace_us, 300.0)
        # The LC job does not change the routing settings of the BE job.
        self.assertEqual(self.config.max_autotune_gemm_backends, "ATEN,TRITON")
        self.assertEqual(bt._STATE.default_class, bt.BEST_EFFORT)
        btorch.disable()

    def test_bypass_gate_follows_the_thread_classes(self):
        btorch.enable("best-effort")  # the gate is on by default
        trainer = threading.get_ident()
        self.assertEqual(self.core.gate_starts, [])  # no LC work to gate for
        seen = {}

        self.core.most_gated = [("sm90_xmma_dgrad", 12), ("fused_adamw", 3)]

        def inference():
            btorch.enable("latency-critical", warm_up=False)
            seen["ident"] = threading.get_ident()
            seen["report"] = btorch.report()["bypass_gate"]
            seen["text"] = str(btorch.report())
            btorch.disable()

        t = threading.Thread(target=inference)
        t.start()
        t.join()
        # Started once, bounded as the host gate is (BATON_BE_GATE_MAX_MS),
        # asleep after the scheduler's idle second, its short kernels those
        # routing leaves alone (BATON_ROUTE_MIN_US).
        self.assertEqual(self.core.gate_starts, [(100000.0, 1000000.0)])
        self.assertEqual(self.core.short_budgets, [bt._STATE.min_route_us])
        self.assertEqual(seen["report"]["state"], "on")
        self.assertTrue(seen["report"]["on"])
        self.assertIn("bypass gate on: 0 launches behind it, 0 holds (0 at "
                      "the bound), listening, asleep 2 times when idle\n"
                      "  gated       12 x sm90_xmma_dgrad\n"
                      "  gated        3 x fused_adamw", seen["text"])
        classes = self.core.gate_classes
        self.assertIn((trainer, "best-effort"), classes)
        self.assertIn(("default", "best-effort"), classes)
        self.assertIn((seen["ident"], "latency-critical"), classes)
        self.assertIn((seen["ident"], "none"), classes)  # disable()
        # One class left: CUPTI goes back to profilers.
        self.assertFalse(self.core.gate_on)
        self.assertTrue(btorch.report()["bypass_gate"]["state"]
                        .startswith("stopped"))
        btorch.disable()
        self.assertEqual(classes[-1], ("clear",))  # uninstall()

    def test_bypass_gate_off_is_reported(self):
        def in_thread(fn):
            t = threading.Thread(target=fn)
            t.start()
            t.join()

        def inference():
            btorch.enable("latency-critical", warm_up=False)
            self.states.append(btorch.report()["bypass_gate"]["state"])
            btorch.disable()

        self.states = []
        in_thread(inference)  # nothing to gate: a process of one class
        self.assertEqual(self.core.gate_starts, [])
        os.environ["BATON_BYPASS_GATE"] = "0"
        btorch.enable("best-effort")
        in_thread(inference)  # turned off
        self.assertEqual(self.core.gate_starts, [])
        btorch.disable()
        btorch._S = btorch._State()
        btorch._S.exit_registered = True
        self.core.gate_why = "CUPTI has another subscriber"
        os.environ["BATON_BE_GATE_MAX_MS"] = "20"
        os.environ["BATON_BYPASS_GATE_IDLE_MS"] = "0"
        bt._reset()  # the bound is read with baton.triton's state
        os.environ["BATON_BYPASS_GATE"] = "1"
        btorch.enable("best-effort")
        in_thread(inference)  # says why, on stderr
        self.assertEqual(self.core.gate_starts, [(20000.0, 0.0)])
        self.assertEqual(self.states, [
            "not started", "off: BATON_BYPASS_GATE=0",
            "off: CUPTI has another subscriber"])
        btorch.disable()

    def test_bypass_gate_settings_are_read_with_care(self):
        def inference():
            btorch.enable("latency-critical", warm_up=False)
            btorch.disable()

        os.environ["BATON_BYPASS_GATE"] = "Off"
        btorch.enable("best-effort")
        t = threading.Thread(target=inference)
        t.start()
        t.join()
        self.assertEqual(self.core.gate_starts, [])
        self.assertEqual(btorch.report()["bypass_gate"]["state"],
                         "off: BATON_BYPASS_GATE=off")
        btorch.disable()
        os.environ["BATON_BYPASS_GATE"] = "yes"
        os.environ["BATON_BYPASS_GATE_IDLE_MS"] = "soon"
        btorch.enable("best-effort")
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            t = threading.Thread(target=inference)
            t.start()
            t.join()
        # Not a number of milliseconds: said, and the default used.
        self.assertEqual(self.core.gate_starts, [(100000.0, 1000000.0)])
        self.assertIn("BATON_BYPASS_GATE_IDLE_MS='soon'", err.getvalue())
        btorch.disable()

    def test_set_bypass_gate_overrides_the_environment(self):
        os.environ["BATON_BYPASS_GATE"] = "0"
        btorch.enable("best-effort")
        self.assertEqual(btorch.set_bypass_gate(False),
                         "off: set_bypass_gate(False)")
        self.assertEqual(btorch.set_bypass_gate(True),
                         "not started: waits for threads of both classes")
        self.assertEqual(self.core.gate_starts, [])  # one class: nothing to gate
        seen = []

        def inference():
            btorch.enable("latency-critical", warm_up=False)
            seen.append(self.core.gate_on)  # on despite BATON_BYPASS_GATE=0
            seen.append(btorch.set_bypass_gate(False))
            seen.append(self.core.gate_on)
            seen.append(btorch.set_bypass_gate(True))
            seen.append(self.core.gate_on)
            btorch.disable()

        t = threading.Thread(target=inference)
        t.start()
        t.join()
        self.assertEqual(seen, [True, "off: set_bypass_gate(False)", False,
                                "on", True])
        self.assertEqual(len(self.core.gate_starts), 2)
        btorch.set_bypass_gate(False)
        os.environ["BATON_BYPASS_GATE"] = "1"  # the call wins over the env
        t = threading.Thread(target=inference)
        seen.clear()
        t.start()
        t.join()
        self.assertEqual(seen[0], False)
        btorch.disable()

    def test_latency_critical_thread_warms_its_libraries_up_first(self):
        begun, held = [], []
        self.core.lc_begin = lambda sms: begun.append(sms) or 42
        calls = self.torch._calls
        self.core.hold_for_load = lambda us: held.append(("hold", len(calls))) or 7
        self.core.release_hold = lambda h: held.append(("release", h, len(calls)))
        btorch.enable("latency-critical")
        stream = self.torch.cuda.current_stream()
        self.assertEqual(stream.priority, -5)
        self.assertEqual([c[0] for c in calls],
                         ["mm", "linear"] * 3 + ["conv2d", "synchronize"])
        self.assertEqual([c[1] for c in calls[:6:2]], ["f32", "f16", "bf16"])
        # On the thread's own stream, waited for, before any bracket, and
        # with routed work held back (the calls may load modules).
        self.assertTrue(all(c[2] is stream for c in calls))
        self.assertEqual(begun, [])
        self.assertEqual(held, [("hold", 0), ("release", 7, 8)])
        btorch.disable()
        calls.clear()
        btorch.enable("latency-critical", warm_up=False)
        btorch.disable()
        os.environ["BATON_LC_WARM_UP"] = "0"
        btorch.enable("latency-critical")
        btorch.disable()
        self.assertEqual(calls, [])

    def test_latency_critical_only_process(self):
        default = self.torch.cuda.current_stream()
        self.assertFalse(self.core.joined)
        btorch.enable("latency-critical")
        # Registered before its first request (best-effort peers see it).
        self.assertTrue(self.core.joined)
        self.assertEqual(bt._STATE.default_class, bt.LATENCY_CRITICAL)
        self.assertEqual(self.config.use_static_cuda_launcher, False)
        self.assertFalse(self.config.max_autotune_gemm)  # no routing settings
        btorch.disable()
        self.assertIs(self.torch.cuda.current_stream(), default)

    def test_schedules(self):
        btorch.enable("best-effort", schedule="always")
        self.assertTrue(bt._STATE.route_be)
        btorch.set_schedule("never")
        self.assertFalse(bt._STATE.route_be)
        btorch._S.lc_clients = 1
        btorch.set_schedule("auto")
        self.assertTrue(bt._STATE.route_be)
        btorch._S.lc_clients = 0
        with self.assertRaises(ValueError):
            btorch.set_schedule("sometimes")
        with self.assertRaises(ValueError):
            btorch.enable("urgent")
        btorch.disable()

    def test_environment(self):
        os.environ["BATON_TORCH"] = "latency-critical"
        os.environ["BATON_TORCH_SCHEDULE"] = "never"
        btorch.enable()
        self.assertEqual(bt._STATE.default_class, bt.LATENCY_CRITICAL)
        self.assertEqual(btorch._S.schedule, "never")
        btorch.disable()

    def test_context_manager_and_explicit_bracket(self):
        with btorch.enabled("best-effort", schedule="auto"):
            self.assertTrue(bt.installed())
            with mock.patch.object(self.torch.cuda, "current_stream",
                                   lambda: types.SimpleNamespace(
                                       synchronize=lambda: None)):
                with btorch.latency_critical():
                    self.assertTrue(bt._STATE.route_be)
            self.assertEqual(self.ended, [42])
            self.assertFalse(bt._STATE.route_be)
        self.assertFalse(bt.installed())

    def test_attention_routing_is_opt_in_and_restored(self):
        btorch.enable("best-effort")
        self.assertTrue(self.torch._sdp["flash"])
        btorch.disable()
        btorch.enable("best-effort", attention="triton")
        self.assertEqual(self.torch._sdp, {"flash": False, "mem": False,
                                           "cudnn": False})
        btorch.disable()
        self.assertEqual(self.torch._sdp, {"flash": True, "mem": True,
                                           "cudnn": True})

    def test_matmuls_left_to_the_library(self):
        preprocessing = self.mods["torch._inductor.select_algorithm"].preprocessing
        btorch.enable("best-effort", matmuls="library")
        self.assertEqual(self.config.use_static_cuda_launcher, False)
        self.assertEqual(self.config.max_autotune_gemm, False)
        self.assertEqual(self.config.max_autotune_gemm_backends, "ATEN,TRITON,CPP")
        self.assertEqual(preprocessing, [])
        btorch.disable()
        os.environ["BATON_TORCH_MATMULS"] = "library"
        self.assertNotIn("max_autotune_gemm", btorch.inductor_settings())
        self.assertIn("max_autotune_gemm",
                      btorch.inductor_settings(matmuls="triton"))
        os.environ["BATON_TORCH_MATMULS"] = "cublas"
        with self.assertRaises(ValueError):
            btorch.enable("best-effort")

    def test_missing_settings_are_reported_not_fatal(self):
        del self.config.max_autotune_conv_backends
        btorch.enable("best-effort")
        r = btorch.report()
        self.assertIn("max_autotune_conv_backends", r["settings_missing"])
        self.assertEqual(r["settings"]["use_static_cuda_launcher"], False)
        self.assertTrue(any("flash" in b for b in r["bypass"]))
        self.assertIn("baton.torch:", str(r))
        btorch.disable()

    def test_report_gives_the_shortest_kernel_routed(self):
        # The default, where the environment does not set it (setUp's
        # patch of the environment restores it).
        for name in ("BATON_ROUTE_MIN_US", "BATON_PREEMPTION_BOUND_US"):
            os.environ.pop(name, None)
        bt._reset()
        btorch.enable("best-effort")
        self.assertEqual(btorch.report()["min_route_us"], 100.0)
        bt.set_routing(False, min_route_us=250)
        r = btorch.report()
        self.assertEqual(r["min_route_us"], 250.0)
        self.assertIn("kernels of 250 us and more", str(r))
        btorch.disable()

    def test_latency_critical_process_elsewhere_turns_routing_on(self):
        btorch.enable("best-effort")
        self.assertIsNone(btorch._S.remote_watch)  # BATON_SHARE=0
        self.assertFalse(bt._STATE.route_be)
        self.core.remote = True
        btorch._poll_remote()
        self.assertTrue(bt._STATE.route_be)
        btorch.set_schedule("never")
        self.assertFalse(bt._STATE.route_be)
        btorch.set_schedule("auto")
        self.core.remote = False
        btorch._poll_remote()
        self.assertFalse(bt._STATE.route_be)
        btorch.disable()

    def test_registry_watcher_follows_other_processes(self):
        del os.environ["BATON_SHARE"]
        btorch.enable("best-effort")
        watcher = btorch._S.remote_watch
        self.assertIsNotNone(watcher)
        self.core.remote = True
        for _ in range(200):
            if bt._STATE.route_be:
                break
            threading.Event().wait(0.01)
        self.assertTrue(bt._STATE.route_be)
        btorch.disable()
        watcher.join(2)
        self.assertFalse(watcher.is_alive())

    def test_registry_watcher_ends_before_the_interpreter_does(self):
        # A daemon thread still polling the registry when the interpreter
        # finalises would be ended inside _core and abort the process.
        del os.environ["BATON_SHARE"]
        btorch.enable("best-effort")
        watcher = btorch._S.remote_watch
        self.assertTrue(watcher.is_alive())
        self.core.router_running = lambda: False
        btorch._at_exit()  # still enabled, as at the end of a training job
        self.assertFalse(watcher.is_alive())
        btorch.disable()

    def test_triton_matmuls_drop_aten_only_where_a_template_exists(self):
        aten, tmpl = ExternKernelCaller(), TritonTemplateCaller()
        btorch.enable("best-effort")
        self.assertEqual(_gemm.prefer([aten, tmpl]), [tmpl])
        self.assertEqual(_gemm.prefer([aten]), [aten])
        self.assertEqual(_gemm.prefer([]), [])
        btorch.disable()
        # Inductor keeps the function: it no longer prefers anything.
        self.assertEqual(_gemm.prefer([aten, tmpl]), [aten, tmpl])

    def test_long_matmuls_only_go_to_triton(self):
        # A library rate of 1 TFLOP/s: 1000^3 takes 2,000 us, 100^3 2 us.
        rates = []
        with mock.patch.object(_gemm, "library_rate",
                               lambda dtype: rates.append(dtype) or 1e12):
            btorch.enable("best-effort", matmuls="long")
            self.assertEqual(self.config.max_autotune_gemm, True)
            # Another key in Inductor's caches than "triton"'s graphs.
            self.assertEqual(self.config.max_autotune_gemm_backends,
                             "TRITON,ATEN")
            long_one, short_one = product(1000, 1000, 1000), product(100, 100, 100)
            self.assertEqual(_gemm.prefer(long_one), long_one[1:])
            self.assertEqual(_gemm.prefer(short_one), short_one)
            self.assertEqual(rates, ["bf16", "bf16"])
            # addmm's inputs begin with the bias; a batched product counts
            # every batch.
            bias = Node(1000)
            addmm = [candidate(ExternKernelCaller, bias, Node(1000, 1000),
                               Node(1000, 1000), out=(1000, 1000))]
            self.assertEqual(_gemm.product_shape(addmm[0]),
                             (1000000, 1000, "bf16"))
            bmm = candidate(TritonTemplateCaller, Node(4, 100, 30),
                            Node(4, 30, 50), out=(4, 100, 50))
            self.assertEqual(_gemm.product_shape(bmm), (20000, 30, "bf16"))
            # Not a product (a convolution's layout): Triton, as before.
            conv = product(8, 8, 8)
            for c in conv:
                c.layout.size = [1, 8, 8, 8]
            self.assertIsNone(_gemm.product_shape(conv[0]))
            self.assertEqual(_gemm.prefer(conv), conv[1:])
            r = btorch.report()
            self.assertEqual(r["matmuls"], "long")
            self.assertEqual([g["triton_only"] for g in r["gemms"]],
                             [True, False])  # products only
            self.assertEqual(r["gemms"][0]["library_us"], 2000.0)
            self.assertIn("GEMM of 10000 outputs x 100 (bf16), 2 us in the "
                          "library: fastest", str(r))
            btorch.disable()
            os.environ["BATON_TORCH_LONG_GEMM_US"] = "1"
            btorch.enable("best-effort", matmuls="long")
            self.assertEqual(_gemm.prefer(short_one), short_one[1:])
            btorch.disable()
            for bad in ("-5", "soon", "nan"):
                os.environ["BATON_TORCH_LONG_GEMM_US"] = bad
                with self.assertRaises(ValueError):
                    btorch.enable("best-effort", matmuls="long")
                self.assertFalse(bt.installed())  # refused before any change
                with self.assertRaises(ValueError):
                    btorch.apply_inductor_settings(matmuls="long")
                self.assertEqual(self.config.max_autotune_gemm, False)
            # Only "long" reads it.
            btorch.enable("best-effort", matmuls="triton")
            btorch.disable()
            btorch.enable("latency-critical", warm_up=False)
            btorch.disable()

    def test_library_rate_is_measured_held_like_a_module_load(self):
        # A thread's first cuBLAS call may load modules: not beside paused
        # routed work. 5 products of 4096^3 in 10 ms: 68.7 TFLOP/s.
        done = []

        class Event:
            def __init__(self, enable_timing=False):
                pass

            def record(self):
                pass

            def synchronize(self):
                done.append("synchronized")

            def elapsed_time(self, end):
                return 10.0

        class Matrix:
            def to(self, dtype):
                return self

        self.torch.full = lambda shape, value, device=None: Matrix()
        self.torch.mm = lambda a, b: done.append("mm")
        self.torch.cuda.Event = Event
        self.core.started = True
        rate = _gemm.library_rate("bf16")
        self.assertAlmostEqual(rate, 2 * 4096 ** 3 * 5 / 0.01)
        self.assertEqual(done, ["mm"] * 7 + ["synchronized"])
        self.assertEqual([h[0] for h in self.core.holds], ["hold", "release"])
        self.assertEqual(_gemm.library_rate("bf16"), rate)  # measured once
        self.assertEqual(len(self.core.holds), 2)
        # A product torch.mm cannot make has no rate, and no hold is left.
        self.torch.mm = lambda a, b: 1 / 0
        self.assertIsNone(_gemm.library_rate("fp8"))
        self.assertEqual([h[0] for h in self.core.holds][2:],
                         ["hold", "release"])


class ClassifyTest(unittest.TestCase):
    def test_runs_between_baton_launches(self):
        names = ["triton_poi_0__baton_ptb", "baton_finalize", "sm90_gemm",
                 "flash_fwd", "triton_red_1", "triton_poi_2__baton_slice",
                 "elementwise_kernel"]
        r = btorch.classify_kernels(names, {"triton_red_1"})
        self.assertEqual((r["baton"], r["triton_not_routed"], r["external"]),
                         (3, 1, 3))
        self.assertEqual(r["max_unrouted_run"], 3)
        self.assertEqual(dict(r["external_top"]),
                         {"sm90_gemm": 1, "flash_fwd": 1, "elementwise_kernel": 1})


if __name__ == "__main__":
    unittest.main()
