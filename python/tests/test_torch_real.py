"""baton.torch with the real PyTorch, on the CPU: every Inductor setting
enable() applies exists in this PyTorch and is restored by disable();
Inductor's autotuning really calls the preference for Triton templates;
the report's profile reads real profiler events. Skipped where PyTorch is
not installed (CI does not install it).

No stand-in Triton here: PyTorch looks Triton up itself (its lazy CUDA
initialisation, which enable() reaches through Inductor, asks
importlib.util.find_spec("triton")), so the real one, or none, stays in
sys.modules. Installing Baton's launcher into Triton is replaced by a
recorder instead (test_triton_hooks and test_triton_real test it)."""

import os
import unittest
from unittest import mock

from helpers import assert_no_stand_ins, have_module

HAVE_TORCH = have_module("torch")


@unittest.skipUnless(HAVE_TORCH, "torch is not installed: baton.torch is "
                     "tested against a stand-in only")
class RealTorchTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        import torch._inductor.config  # noqa: F401
        import torch._inductor.select_algorithm  # noqa: F401
        import torch.profiler  # noqa: F401

    def setUp(self):
        import baton.torch as btorch
        import baton.triton as bt
        from baton import _core
        from helpers import FakeCore
        self.btorch, self.bt = btorch, bt
        assert_no_stand_ins()
        # No GPU here: the launcher's installation and the router are
        # stand-ins.
        self.installs = []
        self.patches = [
            mock.patch.object(bt, "install", lambda **kw: self.installs.append(kw)),
            mock.patch.object(bt, "uninstall",
                              lambda: self.installs.append("uninstall"))]
        for patch in self.patches:
            patch.start()
        self.saved = (bt._core, btorch._core)
        bt._core = btorch._core = FakeCore(_core)
        bt._reset()
        btorch._S = btorch._State()
        btorch._S.exit_registered = True
        self.env = dict(os.environ)
        os.environ["BATON_SHARE"] = "0"

    def tearDown(self):
        for patch in self.patches:
            patch.stop()
        self.bt._reset()
        self.btorch._S = self.btorch._State()
        self.bt._core, self.btorch._core = self.saved
        os.environ.clear()
        os.environ.update(self.env)

    def test_settings_exist_and_are_restored(self):
        import torch._inductor.config as config
        before = {k: self.btorch._config_target(config, k) for k in
                  self.btorch.inductor_settings("best-effort")}
        before = {k: getattr(obj, leaf) for k, (obj, leaf) in before.items()}
        self.btorch.enable("best-effort")
        r = self.btorch.report()
        self.assertEqual(r["settings_missing"], [])
        self.assertEqual(config.use_static_cuda_launcher, False)
        self.assertEqual(config.max_autotune_gemm, True)
        self.assertEqual(config.triton.cudagraphs, False)
        self.assertEqual(self.installs, [{"compile_hook": False}])
        self.btorch.disable()
        self.assertEqual(self.installs[-1], "uninstall")
        after = {k: getattr(*self.btorch._config_target(config, k))
                 for k in before}
        self.assertEqual(after, before)

    def test_preference_is_registered_with_inductor(self):
        from torch._inductor import select_algorithm
        from baton import _gemm
        self.btorch.enable("best-effort")
        cache = select_algorithm.get_algorithm_selector_cache()
        self.assertIn(_gemm.prefer, cache.preprocessing_fns)

        class Extern(select_algorithm.ExternKernelCaller):
            def __init__(self):
                pass

        extern, other = Extern(), object()
        self.assertEqual(_gemm.prefer([extern, other]), [other])
        self.assertEqual(_gemm.prefer([extern]), [extern])
        self.btorch.disable()
        self.assertEqual(_gemm.prefer([extern, other]), [extern, other])

    def test_attention_switches(self):
        import torch
        self.btorch.enable("best-effort", attention="triton")
        self.assertFalse(torch.backends.cuda.flash_sdp_enabled())
        self.btorch.disable()
        self.assertTrue(torch.backends.cuda.flash_sdp_enabled())

    def test_profile_classifies_real_profiler_events(self):
        # The CPU profile has no GPU kernels: every count is zero, and the
        # code path that reads the events runs.
        import torch
        from torch.profiler import ProfilerActivity, profile
        with profile(activities=[ProfilerActivity.CPU]) as prof:
            torch.ones(4).sum()
        from torch.autograd import DeviceType
        events = [e for e in prof.events()
                  if getattr(e, "device_type", None) == DeviceType.CUDA]
        self.assertEqual(events, [])
        self.assertGreater(len(prof.events()), 0)
        self.assertTrue(hasattr(prof.events()[0], "time_range"))


if __name__ == "__main__":
    unittest.main()
