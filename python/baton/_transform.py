"""The PTX transform, in-process, with its result cached on disk.

transform_ptx() is `baton-ptx --report` as a function: the same variants,
the same report (parsed into dataclasses here), the same warnings. Results
are cached by content (see _cache.py): the key covers the PTX text, the
options and the identity of the transformer (a hash of the extension
module, so a rebuilt Baton never reuses an old result).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import threading
from typing import Mapping, Optional, Sequence, Union

from . import _core
from ._cache import Cache, content_key

__all__ = ["Refusal", "KernelReport", "TransformResult", "PtxError",
           "transform_ptx", "transformer_id"]

PtxError = _core.PtxError

_ID_LOCK = threading.Lock()
_TRANSFORMER_ID: Optional[str] = None


def transformer_id() -> str:
    """SHA-256 of the extension module's file: what produced a result."""
    global _TRANSFORMER_ID
    with _ID_LOCK:
        if _TRANSFORMER_ID is None:
            h = hashlib.sha256()
            with open(_core.__file__, "rb") as f:
                for chunk in iter(lambda: f.read(1 << 20), b""):
                    h.update(chunk)
            _TRANSFORMER_ID = h.hexdigest()
        return _TRANSFORMER_ID


@dataclasses.dataclass(frozen=True)
class Refusal:
    """Why a kernel got no variant (or no PTB variant); docs/refusals.md."""
    kind: str                   # "hardware-id", "register-reallocation", ...
    variants: tuple             # the variants it rules out: ("slice", "ptb")
    function: str               # where: the kernel or a device function
    line: int
    column: int
    construct: str              # the offending PTX statement
    message: str

    def __str__(self) -> str:
        return (f"{self.kind} at {self.function}:{self.line}: {self.message} "
                f"({self.construct})")


@dataclasses.dataclass(frozen=True)
class KernelReport:
    name: str
    line: int
    selected: bool
    slice: Optional[str]        # the variant's name, None if refused
    ptb: Optional[str]
    registers_added: dict
    variant_maxnreg: Optional[int]  # the variants' .maxnreg, if any
    refusals: tuple
    facts: dict

    @property
    def variants(self) -> tuple:
        return tuple(v for v, n in (("slice", self.slice), ("ptb", self.ptb))
                     if n)


@dataclasses.dataclass(frozen=True)
class TransformResult:
    ptx: str                    # the module: originals unchanged + variants
    kernels: tuple              # KernelReport per kernel, in module order
    diagnostics: tuple          # "name:line:col: warning: ..." per refusal
    report_json: str            # the document `baton-ptx --report` writes
    cache_hit: bool = False

    def kernel(self, name: str) -> KernelReport:
        for k in self.kernels:
            if k.name == name:
                return k
        raise KeyError(name)

    @property
    def report(self) -> dict:
        return json.loads(self.report_json)


def _parse_report(report_json: str) -> tuple:
    kernels = []
    for k in json.loads(report_json)["kernels"]:
        refusals = tuple(
            Refusal(r["kind"], tuple(r["variants"]), r["function"], r["line"],
                    r["column"], r["construct"], r["message"])
            for r in k["refusals"])
        kernels.append(KernelReport(
            k["name"], k["line"], k["selected"], k["variants"]["slice"],
            k["variants"]["ptb"], dict(k["registers_added"]),
            k["variant_maxnreg"], refusals, dict(k["facts"])))
    return tuple(kernels)


_default_cache: Optional[Cache] = None


def default_cache() -> Cache:
    global _default_cache
    if _default_cache is None:
        _default_cache = Cache()
    return _default_cache


def transform_ptx(ptx: str, *, name: str = "<ptx>", slice: bool = True,
                  ptb: bool = True, kernels: Optional[Sequence[str]] = None,
                  register_budgets: Optional[Mapping[str, int]] = None,
                  cache: Union[Cache, bool, None] = None) -> TransformResult:
    """Adds `<k>__baton_slice` / `<k>__baton_ptb` to the kernels of a PTX
    module (all of them, or those named in `kernels`), as baton-ptx does.
    `register_budgets` maps kernel names to the `.maxnreg` of their variants
    (`_core.register_budget`: the registers that keep the original's
    occupancy).

    `name` is the module's name in the report and the diagnostics. `cache`:
    a Cache, None for the default one, False for none. Raises PtxError
    (a ValueError) if the module does not parse.
    """
    if cache is None:
        cache = default_cache()
    selection = sorted(kernels) if kernels is not None else None
    budgets = dict(sorted((register_budgets or {}).items()))
    key = None
    if cache:
        key = content_key("baton-transform/1", transformer_id(), name,
                          f"slice={int(slice)} ptb={int(ptb)}",
                          json.dumps(selection), json.dumps(budgets), ptx)
        text = cache.get(key, ".ptx")
        meta = cache.get(key, ".json") if text is not None else None
        if meta is not None:
            m = json.loads(meta)
            return TransformResult(text.decode(), _parse_report(m["report"]),
                                   tuple(m["diagnostics"]), m["report"],
                                   cache_hit=True)
    out, report, diagnostics = _core.transform_ptx(
        ptx, name, slice, ptb, list(selection) if selection is not None else None,
        budgets)
    if cache and key:
        # The report first: a reader takes the PTX only with its report.
        cache.put(key, ".json", json.dumps(
            {"report": report, "diagnostics": diagnostics}).encode())
        cache.put(key, ".ptx", out.encode())
    return TransformResult(out, _parse_report(report), tuple(diagnostics),
                           report)
