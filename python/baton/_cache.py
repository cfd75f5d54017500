"""A content-addressed cache on disk.

Entries are named by the SHA-256 of everything that determines them (the
input's bytes, the transformer's identity, the options), so an entry never
goes stale: a change to any input is a different name. Writes go to a
temporary file in the same directory and are renamed into place, so
concurrent processes (Inductor's compile workers, two training jobs) never
read half an entry; the last writer of identical content wins.

Location, first that is set:
  BATON_TRITON_CACHE_DIR          the directory itself
  BATON_CACHE_DIR/triton          (the root Baton's other caches share)
  XDG_CACHE_HOME/baton/triton
  ~/.cache/baton/triton
BATON_TRITON_CACHE=0 turns the cache off (every lookup misses, nothing is
written).
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import threading
from pathlib import Path
from typing import Optional, Union

__all__ = ["Cache", "default_cache_dir", "content_key"]


def default_cache_dir() -> Path:
    explicit = os.environ.get("BATON_TRITON_CACHE_DIR")
    if explicit:
        return Path(explicit)
    root = os.environ.get("BATON_CACHE_DIR")
    if root:
        return Path(root) / "triton"
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg:
        return Path(xdg) / "baton" / "triton"
    return Path.home() / ".cache" / "baton" / "triton"


def content_key(*parts: Union[bytes, str]) -> str:
    """SHA-256 over the parts, each length-prefixed so that ("ab", "c") and
    ("a", "bc") differ."""
    h = hashlib.sha256()
    for part in parts:
        data = part.encode() if isinstance(part, str) else bytes(part)
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()


class Cache:
    """Entries are files `<dir>/<key[:2]>/<key><suffix>`."""

    def __init__(self, directory: Union[str, Path, None] = None,
                 enabled: Optional[bool] = None):
        self.directory = Path(directory) if directory else default_cache_dir()
        if enabled is None:
            enabled = os.environ.get("BATON_TRITON_CACHE", "1") not in ("0", "off")
        self.enabled = enabled
        self.hits = 0
        self.misses = 0
        self.writes = 0
        self.write_errors = 0
        self._lock = threading.Lock()

    def path(self, key: str, suffix: str) -> Path:
        return self.directory / key[:2] / f"{key}{suffix}"

    def get(self, key: str, suffix: str) -> Optional[bytes]:
        if self.enabled:
            try:
                data = self.path(key, suffix).read_bytes()
                with self._lock:
                    self.hits += 1
                return data
            except OSError:
                pass
        with self._lock:
            self.misses += 1
        return None

    def put(self, key: str, suffix: str, data: bytes) -> bool:
        """Stores an entry; False (never an exception) if it cannot be
        written: a read-only or full disk only costs the work again."""
        if not self.enabled:
            return False
        target = self.path(key, suffix)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-")
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(data)
                os.replace(tmp, target)
            except BaseException:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
                raise
        except OSError:
            with self._lock:
                self.write_errors += 1
            return False
        with self._lock:
            self.writes += 1
        return True

    def stats(self) -> dict:
        with self._lock:
            return {"directory": str(self.directory), "enabled": self.enabled,
                    "hits": self.hits, "misses": self.misses,
                    "writes": self.writes, "write_errors": self.write_errors}
