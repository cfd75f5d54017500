"""The extension and the transform through it: the same module and report
as baton-ptx on the committed Triton PTX, refusals surfaced, errors."""

import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import unittest
from pathlib import Path

import baton
from baton import _core

from helpers import CORPUS, baton_ptx, ptxas, triton_corpus

NO_CACHE = False


class ImportTest(unittest.TestCase):
    def test_import_needs_neither_torch_nor_triton(self):
        code = ("import sys, baton, baton.torch, baton.triton; "
                "bad = [m for m in ('torch', 'triton') if m in sys.modules]; "
                "sys.exit(f'imported {bad}' if bad else 0)")
        r = subprocess.run([sys.executable, "-c", code], capture_output=True,
                           text=True, env={**os.environ, "BATON_TORCH": ""})
        self.assertEqual(r.returncode, 0, r.stderr + r.stdout)

    def test_abi_names(self):
        self.assertEqual(baton.SLICE_SUFFIX, "__baton_slice")
        self.assertEqual(baton.PTB_SUFFIX, "__baton_ptb")
        self.assertEqual(_core.PTB_DYNAMIC_SHARED_BYTES, 80)

    def test_runtime_flag_is_a_bool(self):
        self.assertIsInstance(baton.HAS_RUNTIME, bool)


class TritonCorpusTest(unittest.TestCase):
    """Every committed Triton module: both variants of its kernel, the
    original untouched."""

    def test_corpus_present(self):
        self.assertGreaterEqual(len(triton_corpus()), 23, CORPUS)

    def test_variants_of_every_triton_kernel(self):
        for path in triton_corpus():
            if path.name.startswith("refuse_"):
                continue  # test_cluster_kernel_is_refused
            with self.subTest(module=path.name):
                ptx = path.read_text()
                result = baton.transform_ptx(ptx, name=path.name, cache=NO_CACHE)
                self.assertFalse(result.cache_hit)
                (kernel,) = result.kernels
                self.assertEqual(kernel.variants, ("slice", "ptb"))
                self.assertEqual(kernel.slice, kernel.name + "__baton_slice")
                self.assertEqual(kernel.ptb, kernel.name + "__baton_ptb")
                self.assertEqual(kernel.refusals, ())
                for name in (kernel.name, kernel.slice, kernel.ptb):
                    self.assertRegex(result.ptx,
                                     rf"\.entry {re.escape(name)}\(")
                self.assertEqual(result.diagnostics, ())

    def test_cluster_kernel_is_refused(self):
        # Triton's num_ctas=2 declares .explicitcluster: no variant, the
        # original kept, and the reason given.
        path = CORPUS / "triton" / "refuse_cluster_matmul.ptx"
        result = baton.transform_ptx(path.read_text(), name=path.name,
                                     cache=NO_CACHE)
        (kernel,) = result.kernels
        self.assertEqual(kernel.variants, ())
        self.assertEqual([r.kind for r in kernel.refusals], ["cluster"])
        self.assertRegex(result.ptx, rf"\.entry {re.escape(kernel.name)}\(")

    def test_wgmma_and_tma_kernels(self):
        for name in ("matmul_tma_host_desc", "matmul_tma_device_desc",
                     "matmul_persistent_f16"):
            with self.subTest(module=name):
                ptx = (CORPUS / "triton" / f"{name}.ptx").read_text()
                result = baton.transform_ptx(ptx, name=name, cache=NO_CACHE)
                (kernel,) = result.kernels
                self.assertEqual(kernel.variants, ("slice", "ptb"))
                self.assertGreater(kernel.facts["tensor_core_ops"], 0)

    @unittest.skipUnless(baton_ptx(), "baton-ptx not built (set "
                         "BATON_TEST_BATON_PTX): agreement not checked")
    def test_same_module_and_report_as_baton_ptx(self):
        tool = baton_ptx()
        with tempfile.TemporaryDirectory() as tmp:
            for path in triton_corpus():
                with self.subTest(module=path.name):
                    out, rep = Path(tmp) / "out.ptx", Path(tmp) / "r.json"
                    subprocess.run([tool, str(path), "-o", str(out),
                                    "--report", str(rep), "-q"], check=True)
                    result = baton.transform_ptx(
                        path.read_text(), name=str(path), cache=NO_CACHE)
                    self.assertEqual(result.ptx, out.read_text())
                    self.assertEqual(result.report, json.loads(rep.read_text()))

    @unittest.skipUnless(ptxas(), "ptxas not found: output not assembled")
    def test_output_assembles(self):
        path = CORPUS / "triton" / "matmul_tma_device_desc.ptx"
        result = baton.transform_ptx(path.read_text(), cache=NO_CACHE)
        with tempfile.TemporaryDirectory() as tmp:
            src = Path(tmp) / "k.ptx"
            src.write_text(result.ptx)
            r = subprocess.run([ptxas(), "--gpu-name=sm_90a", str(src), "-o",
                                str(Path(tmp) / "k.cubin")],
                               capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)


class RegisterBudgetTest(unittest.TestCase):
    def test_budget_keeps_the_originals_occupancy(self):
        # vector_add: 26 registers, 128 threads, 16 blocks per SM on sm_90.
        self.assertEqual(_core.register_budget(90, 26, 128, 0), 32)
        self.assertEqual(_core.register_budget(90, 36, None), 40)
        # One block of 200 KiB per SM whatever the registers: no limit.
        self.assertIsNone(_core.register_budget(90, 168, 128, 200 * 1024))
        self.assertIsNone(_core.register_budget(42, 26, 128, 0))

    def test_budgets_become_the_variants_maxnreg(self):
        ptx = (CORPUS / "triton" / "vector_add.ptx").read_text()
        free = baton.transform_ptx(ptx, cache=NO_CACHE)
        self.assertNotIn(".maxnreg", free.ptx)
        self.assertIsNone(free.kernels[0].variant_maxnreg)
        fit = baton.transform_ptx(
            ptx, register_budgets={"vector_add_kernel": 32}, cache=NO_CACHE)
        self.assertEqual(fit.ptx.count(".maxnreg 32"), 2)
        self.assertEqual(fit.kernels[0].variant_maxnreg, 32)
        self.assertEqual(fit.report["kernels"][0]["variant_maxnreg"], 32)
        # The original keeps its header.
        original = fit.ptx[fit.ptx.index(".entry vector_add_kernel("):]
        self.assertNotIn(".maxnreg", original[:original.index("{")])

    @unittest.skipUnless(ptxas(), "ptxas not found: registers not checked")
    def test_ptxas_holds_the_ptb_variant_to_the_budget(self):
        ptx = (CORPUS / "triton" / "vector_add.ptx").read_text()
        fit = baton.transform_ptx(
            ptx, register_budgets={"vector_add_kernel": 32}, cache=NO_CACHE)
        with tempfile.TemporaryDirectory() as tmp:
            src = Path(tmp) / "k.ptx"
            src.write_text(fit.ptx)
            r = subprocess.run([ptxas(), "-v", "--gpu-name=sm_90a", str(src),
                                "-o", str(Path(tmp) / "k.cubin")],
                               capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        used = re.search(r"entry function 'vector_add_kernel__baton_ptb'.*?"
                         r"Used (\d+) registers", r.stdout + r.stderr, re.S)
        self.assertIsNotNone(used, r.stderr)
        self.assertLessEqual(int(used.group(1)), 32)


class RefusalTest(unittest.TestCase):
    def test_refused_kernel_keeps_original_and_reports_why(self):
        ptx = (CORPUS / "nvcc" / "refuse_smid.ptx").read_text()
        result = baton.transform_ptx(ptx, name="refuse_smid.ptx", cache=NO_CACHE)
        self.assertTrue(result.kernels)
        for kernel in result.kernels:
            self.assertEqual(kernel.variants, ())
            (refusal,) = kernel.refusals
            self.assertEqual(refusal.kind, "hardware-id")
            self.assertEqual(refusal.variants, ("slice", "ptb"))
            self.assertIn("%smid", refusal.construct)
            self.assertGreater(refusal.line, 0)
            self.assertIn("%smid", str(refusal))
            self.assertNotIn(f".entry {kernel.name}__baton", result.ptx)
        self.assertEqual(len(result.diagnostics), len(result.kernels))
        self.assertIn("refuse_smid.ptx:", result.diagnostics[0])
        self.assertIn("[hardware-id]", result.diagnostics[0])

    def test_ptb_only_refusal_leaves_slice(self):
        # A warp-specialised kernel reallocates registers (setmaxnreg): its
        # PTB variant is refused, its slice variant is made.
        ptx = (CORPUS / "triton" / "vector_add.ptx").read_text()
        ptx = ptx.replace("\tmov.u32 \t%r", "\tsetmaxnreg.inc.sync.aligned.u32 232;\n\tmov.u32 \t%r", 1)
        self.assertIn("setmaxnreg", ptx)
        result = baton.transform_ptx(ptx, name="ws.ptx", cache=NO_CACHE)
        (kernel,) = result.kernels
        self.assertEqual(kernel.variants, ("slice",))
        self.assertEqual([r.kind for r in kernel.refusals],
                         ["register-reallocation"])
        self.assertEqual(kernel.refusals[0].variants, ("ptb",))

    def test_variant_selection(self):
        ptx = (CORPUS / "triton" / "softmax.ptx").read_text()
        only_slice = baton.transform_ptx(ptx, ptb=False, cache=NO_CACHE)
        self.assertEqual(only_slice.kernels[0].variants, ("slice",))
        self.assertNotIn("__baton_ptb", only_slice.ptx)
        none = baton.transform_ptx(ptx, kernels=["other"], cache=NO_CACHE)
        self.assertFalse(none.kernels[0].selected)
        self.assertNotIn("__baton", none.ptx)

    def test_parse_error_is_located(self):
        with self.assertRaises(baton.PtxError) as cm:
            baton.transform_ptx(".version 8.7\n.target sm_90a\n.entry k( {",
                                name="bad.ptx", cache=NO_CACHE)
        self.assertIsInstance(cm.exception, ValueError)
        self.assertRegex(str(cm.exception), r"^bad\.ptx:\d+:\d+: error: ")

    def test_hostile_input_does_not_crash(self):
        for text in ["", "\0\0\0", "{" * 10000, ".entry " * 1000,
                     (CORPUS / "triton" / "softmax.ptx").read_text()[:3000]]:
            try:
                baton.transform_ptx(text, cache=NO_CACHE)
            except baton.PtxError:
                pass


class ThreadsTest(unittest.TestCase):
    def test_concurrent_transforms_agree(self):
        ptx = (CORPUS / "triton" / "matmul_f16.ptx").read_text()
        expected = baton.transform_ptx(ptx, cache=NO_CACHE).ptx
        results, errors = [], []

        def work():
            try:
                for _ in range(3):
                    results.append(baton.transform_ptx(ptx, cache=NO_CACHE).ptx)
            except Exception as e:  # pragma: no cover
                errors.append(e)

        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])
        self.assertEqual(len(results), 12)
        self.assertTrue(all(r == expected for r in results))


if __name__ == "__main__":
    unittest.main()
