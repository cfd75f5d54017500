"""The tests' stand-in modules leave sys.modules as they found it: a real
PyTorch or Triton imported by another test (the GPU machine has both)
must find its own modules afterwards, and a stand-in must not break
importlib's lookups while it is in place."""

import importlib.util
import sys
import types
import unittest

from helpers import (assert_no_stand_ins, install_fake_triton,
                     stand_ins_left, swap_modules)

TOP = "baton_test_stand_in_pkg"


class StandInTest(unittest.TestCase):
    def setUp(self):
        self.real = types.ModuleType(TOP)
        self.real_sub = types.ModuleType(TOP + ".sub")
        sys.modules[TOP] = self.real
        sys.modules[TOP + ".sub"] = self.real_sub

    def tearDown(self):
        for k in (TOP, TOP + ".sub", TOP + ".late"):
            sys.modules.pop(k, None)

    def test_restore_puts_back_the_same_objects(self):
        fake = types.ModuleType(TOP)
        restore = swap_modules(TOP, {TOP: fake})
        self.assertIs(sys.modules[TOP], fake)
        self.assertNotIn(TOP + ".sub", sys.modules)
        self.assertEqual(stand_ins_left(), [TOP])
        # Imported under the stand-in: gone with it.
        sys.modules[TOP + ".late"] = types.ModuleType(TOP + ".late")
        restore()
        self.assertIs(sys.modules[TOP], self.real)
        self.assertIs(sys.modules[TOP + ".sub"], self.real_sub)
        self.assertNotIn(TOP + ".late", sys.modules)
        assert_no_stand_ins()

    def test_find_spec_works_on_a_stand_in(self):
        # PyTorch's lazy CUDA initialisation asks find_spec("triton"); a
        # module whose __spec__ is None makes it raise ValueError.
        restore = swap_modules(TOP, {TOP: types.ModuleType(TOP)})
        try:
            self.assertEqual(importlib.util.find_spec(TOP).name, TOP)
        finally:
            restore()

    def test_fake_triton_is_taken_out_again(self):
        before = {k: v for k, v in sys.modules.items()
                  if k == "triton" or k.startswith("triton.")}
        modules, restore = install_fake_triton()
        self.assertIs(sys.modules["triton"], modules["triton"])
        self.assertIsNotNone(importlib.util.find_spec("triton"))
        restore()
        after = {k: v for k, v in sys.modules.items()
                 if k == "triton" or k.startswith("triton.")}
        self.assertEqual(after.keys(), before.keys())
        self.assertTrue(all(after[k] is before[k] for k in before))
        assert_no_stand_ins()


if __name__ == "__main__":
    unittest.main()
