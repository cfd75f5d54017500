"""baton.triton with the real Triton (3.6 on the device machine; checked
with 3.6 and 3.9 on the CPU), compiling for sm_90a on the CPU
(Triton's compiler and ptxas need no GPU): the compile hook puts the
variants into Triton's cubin for plain, wgmma and TMA kernels; the packer
agrees with the kernels' parameters; Baton assembles a kernel exactly as
Triton does. Skipped where Triton is not installed (CI does not install
it)."""

import re
import unittest

from helpers import have_module

HAVE_TRITON = have_module("triton")
REASON = "triton is not installed: its hooks are tested against a stand-in only"

if HAVE_TRITON:
    import triton
    import triton.language as tl

    @triton.jit
    def add_kernel(x, y, out, n, B: tl.constexpr):
        offs = tl.program_id(0) * B + tl.arange(0, B)
        m = offs < n
        tl.store(out + offs, tl.load(x + offs, mask=m) + tl.load(y + offs, mask=m),
                 mask=m)

    @triton.jit
    def mm_kernel(a, b, c, M, N, K, sam, sbk, scm, scale,
                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
        pm, pn = tl.program_id(0), tl.program_id(1)
        rm = pm * BM + tl.arange(0, BM)
        rn = pn * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, K, BK):
            x = tl.load(a + rm[:, None] * sam + (k + rk)[None, :])
            y = tl.load(b + (k + rk)[:, None] * sbk + rn[None, :])
            acc = tl.dot(x, y, acc)
        tl.store(c + rm[:, None] * scm + rn[None, :], (acc * scale).to(tl.float16))

    @triton.jit
    def tma_kernel(a, b, c, M, N, K,
                   BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
        da = tl.make_tensor_descriptor(a, [M, K], [K, 1], [BM, BK])
        db = tl.make_tensor_descriptor(b, [K, N], [N, 1], [BK, BN])
        dc = tl.make_tensor_descriptor(c, [M, N], [N, 1], [BM, BN])
        pm, pn = tl.program_id(0), tl.program_id(1)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, K, BK):
            acc = tl.dot(da.load([pm * BM, k]), db.load([k, pn * BN]), acc)
        dc.store([pm * BM, pn * BN], acc.to(tl.float16))

    KERNELS = {
        "add": (add_kernel, {"x": "*fp32", "y": "*fp32", "out": "*fp32",
                             "n": "i32", "B": "constexpr"}, {"B": 1024}, 4),
        "mm": (mm_kernel, {"a": "*fp16", "b": "*fp16", "c": "*fp16", "M": "i32",
                           "N": "i32", "K": "i32", "sam": "i32", "sbk": "i32",
                           "scm": "i32", "scale": "fp32", "BM": "constexpr",
                           "BN": "constexpr", "BK": "constexpr"},
               {"BM": 128, "BN": 128, "BK": 64}, 8),
        "tma": (tma_kernel, {"a": "*fp16", "b": "*fp16", "c": "*fp16", "M": "i32",
                             "N": "i32", "K": "i32", "BM": "constexpr",
                             "BN": "constexpr", "BK": "constexpr"},
                {"BM": 128, "BN": 128, "BK": 64}, 8),
    }


def entry_param_sizes(ptx, name):
    """Byte sizes of the parameters of `.entry name(...)`."""
    head = ptx[ptx.index(f".entry {name}("):]
    head = head[:head.index(")")]
    sizes = []
    for p in re.findall(r"\.param\s+([^,\n]+)", head):
        m = re.search(r"\.b8\s+\w+\[(\d+)\]", p)
        if m:
            sizes.append(int(m.group(1)))
        else:
            sizes.append(int(re.search(r"\.[busf](\d+)", p).group(1)) // 8)
    return sizes


@unittest.skipUnless(HAVE_TRITON, REASON)
class RealTritonTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        import os
        import tempfile
        from triton.backends.compiler import GPUTarget
        from triton.compiler import ASTSource
        cls.tmp = tempfile.TemporaryDirectory()
        os.environ["TRITON_CACHE_DIR"] = cls.tmp.name
        cls.target = GPUTarget("cuda", 90, 32)
        cls.ASTSource = ASTSource

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def compile(self, which, **options):
        fn, sig, consts, warps = KERNELS[which]
        src = self.ASTSource(fn, sig, consts)
        return triton.compile(src, target=self.target,
                              options={"num_warps": warps, **options})

    def test_compile_hook_puts_variants_in_triton_s_cubin(self):
        import baton.triton as bt
        from triton import knobs
        previous = knobs.runtime.add_stages_inspection_hook
        bt._STATE.previous_stage_hook = previous
        knobs.runtime.add_stages_inspection_hook = bt.stage_hook
        try:
            triton.knobs.compilation.always_compile = True
            for which in KERNELS:
                with self.subTest(kernel=which):
                    k = self.compile(which)
                    name = k.metadata.name
                    self.assertNotIn("__baton", name)
                    for suffix in ("", "__baton_slice", "__baton_ptb"):
                        self.assertIn(f".entry {name}{suffix}(", k.asm["ptx"])
                        self.assertIn(f"{name}{suffix}".encode(), k.asm["cubin"])
                    variants, refusals = bt._STATE.compiled[name]
                    self.assertEqual(variants, ("slice", "ptb"), refusals)
        finally:
            knobs.runtime.add_stages_inspection_hook = previous
            triton.knobs.compilation.always_compile = False

    def test_wgmma_and_tma_were_compiled(self):
        self.assertIn("wgmma", self.compile("mm").asm["ptx"])
        tma = self.compile("tma")
        self.assertIn("cp.async.bulk.tensor", tma.asm["ptx"])
        self.assertGreater(tma.metadata.global_scratch_size, 0)

    def test_packer_matches_the_kernel_parameters(self):
        from baton._pack import ArgPacker
        for which in KERNELS:
            with self.subTest(kernel=which):
                k = self.compile(which)
                md = k.metadata
                packer = ArgPacker(k.src.signature,
                                   getattr(md, "tensordesc_meta", None),
                                   global_scratch=(md.global_scratch_size,
                                                   md.global_scratch_align))
                self.assertEqual(packer.param_sizes,
                                 entry_param_sizes(k.asm["ptx"], md.name))

    def test_baton_assembles_like_triton(self):
        import baton
        import baton.triton as bt
        cases = [("add", ""), ("mm", "")]
        if bt._triton_at_least(3, 8):  # sanitised kernels: ptxas at -O1
            cases.append(("add", "consan"))
        for which, mode in cases:
            with self.subTest(kernel=which, instrumentation_mode=mode):
                k = self.compile(which, **(
                    {"instrumentation_mode": mode} if mode else {}))
                md = k.metadata
                cubin = bt.assemble(k.asm["ptx"], md.target.arch,
                                    md.enable_fp_fusion, md.ptx_options,
                                    cache=baton.Cache(self.tmp.name + "/b"),
                                    instrumentation_mode=getattr(
                                        md, "instrumentation_mode", ""))
                self.assertEqual(cubin, k.asm["cubin"])


if __name__ == "__main__":
    unittest.main()
