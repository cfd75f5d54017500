"""Triton launch arguments packed as kernel parameter bytes."""

import struct
import unittest

from baton._pack import ArgPacker, PackError, tensormap_bytes

from helpers import Allocations


class Tensor:
    def __init__(self, ptr):
        self.ptr = ptr

    def data_ptr(self):
        return self.ptr


SIG = {"x": "*fp32", "y": "*fp16", "out": "*bf16", "n": "i32",
       "BLOCK": "constexpr", "scale": "fp32", "h": "fp16", "b": "bf16",
       "d": "fp64", "flag": "i1", "u": "u64", "s": "i64", "c": "u8",
       "w": "i16"}
ARGS = [Tensor(0x1000), 0x2000, None, 1000003, 1024, 0.5, 1.0 / 3, -2.75,
        1e300, True, 2**64 - 1, -(2**62), 255, -7]


def expected_bytes(g=0, p=0):
    return b"".join([
        struct.pack("<QQQ", 0x1000, 0x2000, 0), struct.pack("<i", 1000003),
        struct.pack("<f", 0.5), struct.pack("<e", 1.0 / 3),
        struct.pack("<H", struct.unpack("<I", struct.pack("<f", -2.75))[0] >> 16),
        struct.pack("<d", 1e300), struct.pack("<b", 1),
        struct.pack("<Q", 2**64 - 1), struct.pack("<q", -(2**62)),
        struct.pack("<B", 255), struct.pack("<h", -7),
        struct.pack("<QQ", g, p)])


class PackTest(unittest.TestCase):
    def test_scalars_pointers_constexpr(self):
        packer = ArgPacker(SIG)
        self.assertIsNotNone(packer._fast)
        self.assertEqual(packer.pack(ARGS), expected_bytes())
        self.assertEqual(packer.param_sizes,
                         [8, 8, 8, 4, 4, 2, 2, 8, 1, 8, 8, 1, 2, 8, 8])
        self.assertEqual(packer.size, len(expected_bytes()))

    def test_general_path_agrees_with_generated(self):
        packer = ArgPacker(SIG)
        self.assertEqual(packer._pack_general(ARGS, 5, 6),
                         packer.pack(ARGS, (5, 6)))

    def test_bf16_truncates_like_triton(self):
        # 1 + 2^-8 + 2^-9 rounds up to nearest, but Triton truncates.
        value = 1 + 2**-8 + 2**-9
        packer = ArgPacker({"b": "bf16"})
        self.assertEqual(packer.pack([value])[:2], struct.pack("<H", 0x3F80))

    def test_fp16_rounds_to_nearest(self):
        packer = ArgPacker({"h": "fp16"})
        self.assertEqual(packer.pack([1 + 2**-11])[:2], struct.pack("<e", 1.0))
        self.assertEqual(packer.pack([65504.0])[:2], struct.pack("<e", 65504.0))

    def test_wrong_argument_count(self):
        with self.assertRaises(PackError):
            ArgPacker(SIG).pack(ARGS[:-1])

    def test_unknown_type(self):
        with self.assertRaises(PackError):
            ArgPacker({"x": "fp8e4nv"})

    def test_tuples_flatten(self):
        packer = ArgPacker({"t": ("*fp32", "i32", "constexpr"), "n": "i64"})
        self.assertIsNone(packer._fast)
        self.assertEqual(packer.param_sizes, [8, 4, 8, 8, 8])
        self.assertEqual(packer.pack([(Tensor(8), 3, 64), 9]),
                         struct.pack("<QiqQQ", 8, 3, 9, 0, 0))

    def test_host_tensor_descriptor_expands_like_triton(self):
        calls = []

        def make_tensordesc_arg(arg, meta):
            calls.append((arg, meta))
            return [Tensor(0xA0), 64, 32, 32, 1, False, 64, 32, 32, 1]

        packer = ArgPacker({"d": "tensordesc<fp16[64, 32]>", "n": "i32"},
                           [None], make_tensordesc_arg=make_tensordesc_arg)
        # base, shape x2 and strides x2 as i64, padding flag, shape i32, strides i64
        self.assertEqual(packer.param_sizes,
                         [8, 8, 8, 8, 8, 1, 4, 4, 8, 8, 4, 8, 8])
        out = packer.pack(["desc", 5])
        self.assertEqual(calls, [("desc", None)])
        self.assertEqual(out, struct.pack("<QqqqqbiiqqiQQ", 0xA0, 64, 32, 32, 1,
                                          0, 64, 32, 32, 1, 5, 0, 0))

    def test_device_tensor_descriptor_passes_the_map(self):
        meta = {"swizzle": 3, "elem_size": 2, "elem_type": 6,
                "block_size": [64, 64], "fp4_padded": False}
        packer = ArgPacker({"d": "tensordesc<fp16[64, 64]>"}, [meta],
                           make_tensordesc_arg=lambda a, m: [a, 128, 256, 256, 1])
        self.assertEqual(packer.param_sizes, [128, 4, 4, 8, 8, 8, 8])
        self.assertEqual(packer.param_types[0], "nvTmaDesc")

    def test_tensormap_bytes_reads_the_last_128_bytes(self):
        # A stand-in with PyCUtensorMap's name and size: the object header
        # then the map at offset 128 (driver.c: _Alignas(128) CUtensorMap).
        cls = type("PyCUtensorMap", (bytearray,), {})
        obj = cls(b"")
        with self.assertRaises(PackError):
            tensormap_bytes(obj)  # bytearray's size is not the layout
        with self.assertRaises(PackError):
            tensormap_bytes(object())

    def test_scratch_is_allocated_like_triton(self):
        allocators = {"global": Allocations(), "profile": Allocations()}
        packer = ArgPacker({"x": "*fp32"}, global_scratch=(384, 128),
                           profile_scratch=(0, 1), num_ctas=1,
                           allocators=lambda which: allocators[which])
        g, p = packer.scratch(grid_size=6, stream=77)
        self.assertEqual(allocators["global"].calls, [(6 * 384, 128, 77)])
        self.assertEqual(allocators["profile"].calls, [])
        self.assertIsNone(p)
        out = packer.pack([Tensor(1)], (g, p))
        self.assertEqual(out, struct.pack("<QQQ", 1, 0x7000_0000 + 6 * 384, 0))


if __name__ == "__main__":
    unittest.main()
