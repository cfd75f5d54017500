"""Triton launch arguments as the bytes of kernel parameters.

A routed launch gives the scheduler the kernel's parameter values back to
back, in the sizes the driver reports for the kernel (cuFuncGetParamInfo);
the runtime copies them and appends the task pointer. This module turns the
arguments a Triton launcher receives into those bytes, following what
Triton 3.6's generated launcher (triton/backends/nvidia/driver.py,
make_launcher) passes to cuLaunchKernelEx:

  * one value per signature entry, in order, tuples flattened;
    `constexpr` entries are received but not passed;
  * pointers (`*fp16`, ...): an int, None (null) or an object with
    data_ptr() (a tensor);
  * integers and floats in their C types; fp16 rounded as PyFloat_Pack2
    does, bf16 truncated from fp32 as Triton's pack_bf16 does;
  * `nvTmaDesc`: the 128-byte CUtensorMap of a PyCUtensorMap object;
  * `tensordesc<...>` (host-side tensor descriptors): expanded by Triton's
    own make_tensordesc_arg into a CUtensorMap (or base pointer), shape and
    strides;
  * then two hidden pointers: global scratch and profile scratch, allocated
    like Triton does (grid size x num_ctas x per-program bytes, through the
    allocators set with triton.set_allocator / set_profile_allocator).

The common case (no tuples, no tensor descriptors) is packed by a function
generated per signature around one struct.Struct, as Triton generates C.
"""

from __future__ import annotations

import ctypes
import re
import struct
from typing import Any, Callable, Optional, Sequence

__all__ = ["ArgPacker", "PackError", "tensormap_bytes"]


class PackError(ValueError):
    """The signature has a type this packer does not know."""


# Triton type -> (struct code, bytes)
_SCALARS = {
    "i1": ("b", 1), "i8": ("b", 1), "i16": ("h", 2), "i32": ("i", 4),
    "i64": ("q", 8), "u1": ("B", 1), "u8": ("B", 1), "u16": ("H", 2),
    "u32": ("I", 4), "u64": ("Q", 8),
    "fp16": ("e", 2), "bf16": ("H", 2), "fp32": ("f", 4), "f32": ("f", 4),
    "fp64": ("d", 8),
}
_TMA_BYTES = 128
_F32 = struct.Struct("<f")
_U32 = struct.Struct("<I")


def _ptr(x) -> int:
    if x is None:
        return 0
    if type(x) is int:
        return x
    return x.data_ptr()


def _bf16(x) -> int:
    # Triton: (uint16_t)(bits of (float)x >> 16), a truncation.
    return _U32.unpack(_F32.pack(x))[0] >> 16


def tensormap_bytes(obj) -> bytes:
    """The CUtensorMap inside a Triton PyCUtensorMap object.

    driver.c declares it as {PyObject_HEAD; _Alignas(128) CUtensorMap
    tensorMap;}, so the map is the last 128 bytes of the object; the
    type's size is checked so that another layout is refused, not misread.
    """
    ty = type(obj)
    if ty.__name__ != "PyCUtensorMap":
        raise PackError(f"expected a PyCUtensorMap, got {ty.__name__}")
    size = ty.__basicsize__
    if size < _TMA_BYTES + 16 or (size - _TMA_BYTES) % _TMA_BYTES:
        raise PackError(f"PyCUtensorMap of an unknown layout ({size} bytes)")
    return ctypes.string_at(id(obj) + size - _TMA_BYTES, _TMA_BYTES)


def _tensordesc_types(sig: str, meta) -> list:
    """What Triton passes for one tensordesc argument (_expand_signature)."""
    match = re.match(r"tensordesc<([^[>]*)\[([^]]*)\]", sig)
    if not match:
        raise PackError(f"unknown tensor descriptor type {sig!r}")
    dtype, shape = match.group(1), match.group(2)
    ndim = shape.count(",") + 1
    if meta is None:
        out = ["*" + dtype] + ["i64"] * (2 * ndim) + ["i1"]
    else:
        out = ["nvTmaDesc"]
    return out + ["i32"] * ndim + ["i64"] * ndim


def _flatten(sig, out: list) -> None:
    if isinstance(sig, tuple):
        for s in sig:
            _flatten(s, out)
    else:
        out.append(sig)


class ArgPacker:
    """Packs the kernel arguments of one Triton kernel's launches.

    signature: src.signature (name -> type), in argument order.
    tensordesc_meta: metadata.tensordesc_meta (None for the host form).
    Scratch sizes and alignments from the kernel's metadata.
    """

    def __init__(self, signature: dict, tensordesc_meta=None, *,
                 global_scratch: tuple = (0, 1),
                 profile_scratch: tuple = (0, 1), num_ctas: int = 1,
                 make_tensordesc_arg: Optional[Callable] = None,
                 allocators: Optional[Callable] = None):
        self.signature = list(signature.values())
        self.tensordesc_meta = list(tensordesc_meta or [])
        self.global_scratch = global_scratch
        self.profile_scratch = profile_scratch
        self.num_ctas = num_ctas
        self._make_tensordesc_arg = make_tensordesc_arg
        self._allocators = allocators
        # Parameter types as passed to the kernel, in order.
        self.param_types = []
        desc = 0
        self._general = False
        for sig in self.signature:
            if isinstance(sig, tuple):
                self._general = True
                flat = []
                _flatten(sig, flat)
                self.param_types += [t for t in flat if t != "constexpr"]
            elif sig.startswith("tensordesc"):
                self._general = True
                meta = (self.tensordesc_meta[desc]
                        if desc < len(self.tensordesc_meta) else None)
                desc += 1
                self.param_types += _tensordesc_types(sig, meta)
            elif sig != "constexpr":
                self.param_types.append(sig)
        self.param_types += ["*scratch", "*profile_scratch"]
        self.param_sizes = [self._size(t) for t in self.param_types]
        self.size = sum(self.param_sizes)
        self._fast = None if self._general else self._generate()

    @staticmethod
    def _size(ty: str) -> int:
        if ty.startswith("*"):
            return 8
        if ty == "nvTmaDesc":
            return _TMA_BYTES
        if ty in _SCALARS:
            return _SCALARS[ty][1]
        raise PackError(f"parameter type {ty!r} is not supported")

    @staticmethod
    def _code(ty: str) -> str:
        if ty.startswith("*"):
            return "Q"
        if ty == "nvTmaDesc":
            return f"{_TMA_BYTES}s"
        return _SCALARS[ty][0]

    def _generate(self) -> Callable:
        """def pack(a0, a1, ..., g, p): return st.pack(<converted>..., g, p)"""
        names, values = [], []
        for i, ty in enumerate(self.signature):
            name = f"a{i}"
            names.append(name)
            if ty == "constexpr":
                continue
            if ty.startswith("*"):
                values.append(f"_ptr({name})")
            elif ty == "bf16":
                values.append(f"_bf16({name})")
            elif ty == "nvTmaDesc":
                values.append(f"_tma({name})")
            else:
                values.append(name)
        fmt = "<" + "".join(self._code(t) for t in self.param_types)
        scope = {"_st": struct.Struct(fmt), "_ptr": _ptr, "_bf16": _bf16,
                 "_tma": tensormap_bytes}
        args = ", ".join(names + ["_g", "_p"])
        body = ", ".join(values + ["_g", "_p"])
        exec(f"def pack({args}):\n    return _st.pack({body})\n", scope)
        return scope["pack"]

    def _value(self, ty: str, x) -> bytes:
        if ty.startswith("*"):
            return struct.pack("<Q", _ptr(x))
        if ty == "nvTmaDesc":
            return tensormap_bytes(x)
        if ty == "bf16":
            return struct.pack("<H", _bf16(x))
        return struct.pack("<" + _SCALARS[ty][0], x)

    def _pack_general(self, args: Sequence, g: int, p: int) -> bytes:
        out = []
        desc = 0

        def put(ty, x):
            if isinstance(ty, tuple):
                for t, v in zip(ty, x):
                    put(t, v)
            elif ty != "constexpr":
                out.append(self._value(ty, x))

        for ty, x in zip(self.signature, args):
            if isinstance(ty, str) and ty.startswith("tensordesc"):
                meta = (self.tensordesc_meta[desc]
                        if desc < len(self.tensordesc_meta) else None)
                desc += 1
                if self._make_tensordesc_arg is None:
                    raise PackError("tensor descriptor arguments need "
                                    "Triton's make_tensordesc_arg")
                expanded = self._make_tensordesc_arg(x, meta)
                for t, v in zip(_tensordesc_types(ty, meta), expanded):
                    put(t, v)
            else:
                put(ty, x)
        out.append(struct.pack("<QQ", g, p))
        return b"".join(out)

    def scratch(self, grid_size: int, stream: int):
        """The two hidden buffers of one launch (objects or None), allocated
        as Triton's launcher does; keep them alive until the launch is
        queued."""
        def alloc(spec, which):
            size, align = spec
            if not size or size <= 0:
                return None
            return self._allocators(which)(grid_size * self.num_ctas * size,
                                           align, stream)
        return (alloc(self.global_scratch, "global"),
                alloc(self.profile_scratch, "profile"))

    def pack(self, args: Sequence, scratch=(None, None)) -> bytes:
        """The parameter bytes for kernel arguments `args` (the launcher's
        arguments after its first four) and the scratch buffers."""
        if len(args) != len(self.signature):
            raise PackError(f"{len(args)} arguments for a signature of "
                            f"{len(self.signature)}")
        g = _ptr(scratch[0])
        p = _ptr(scratch[1])
        if self._fast is not None:
            return self._fast(*args, g, p)
        return self._pack_general(args, g, p)
