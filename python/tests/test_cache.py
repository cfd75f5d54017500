"""The on-disk cache: keyed by content, hits and misses, safe failure."""

import os
import stat
import tempfile
import unittest
from pathlib import Path
from unittest import mock

import baton
from baton import _cache

from helpers import CORPUS, TempCache


class CacheTest(unittest.TestCase):
    def setUp(self):
        self.ptx = (CORPUS / "triton" / "softmax.ptx").read_text()

    def test_miss_then_hit(self):
        with TempCache() as cache:
            first = baton.transform_ptx(self.ptx, name="softmax", cache=cache)
            self.assertFalse(first.cache_hit)
            self.assertEqual((cache.hits, cache.misses, cache.writes), (0, 1, 2))
            second = baton.transform_ptx(self.ptx, name="softmax", cache=cache)
            self.assertTrue(second.cache_hit)
            self.assertEqual(cache.hits, 2)  # the module and its report
            self.assertEqual(second.ptx, first.ptx)
            self.assertEqual(second.kernels, first.kernels)
            self.assertEqual(second.report, first.report)
            self.assertEqual(second.diagnostics, first.diagnostics)

    def test_key_covers_content_options_and_transformer(self):
        with TempCache() as cache:
            baton.transform_ptx(self.ptx, name="softmax", cache=cache)
            for kwargs in ({"ptb": False}, {"slice": False},
                           {"kernels": ["softmax_kernel"]}, {"name": "other"},
                           {"register_budgets": {"softmax_kernel": 32}}):
                with self.subTest(**kwargs):
                    args = {"name": "softmax", **kwargs}
                    self.assertFalse(baton.transform_ptx(
                        self.ptx, cache=cache, **args).cache_hit)
            changed = self.ptx.replace("softmax_kernel", "softmax_kernel2")
            self.assertFalse(baton.transform_ptx(changed, name="softmax",
                                                 cache=cache).cache_hit)
            with mock.patch.object(baton._transform, "_TRANSFORMER_ID",
                                   "another build"):
                self.assertFalse(baton.transform_ptx(
                    self.ptx, name="softmax", cache=cache).cache_hit)

    def test_entries_are_named_by_content(self):
        with TempCache() as cache:
            baton.transform_ptx(self.ptx, cache=cache)
            files = sorted(p.name for p in Path(cache.directory).rglob("*")
                           if p.is_file())
            self.assertEqual(len(files), 2)
            self.assertRegex(files[0], r"^[0-9a-f]{64}\.json$")
            self.assertRegex(files[1], r"^[0-9a-f]{64}\.ptx$")
            self.assertFalse([p for p in Path(cache.directory).rglob(".tmp-*")])

    def test_half_written_entry_is_a_miss(self):
        with TempCache() as cache:
            baton.transform_ptx(self.ptx, cache=cache)
            for p in Path(cache.directory).rglob("*.json"):
                p.unlink()  # a module without its report is not used
            self.assertFalse(baton.transform_ptx(self.ptx, cache=cache).cache_hit)

    def test_disabled_cache(self):
        with TempCache() as cache:
            off = baton.Cache(cache.directory, enabled=False)
            baton.transform_ptx(self.ptx, cache=off)
            self.assertFalse(baton.transform_ptx(self.ptx, cache=off).cache_hit)
            self.assertFalse(list(Path(cache.directory).rglob("*.ptx")))
        with mock.patch.dict(os.environ, {"BATON_TRITON_CACHE": "0"}):
            self.assertFalse(baton.Cache("/nonexistent").enabled)
        self.assertFalse(baton.transform_ptx(self.ptx, cache=False).cache_hit)

    @unittest.skipIf(os.geteuid() == 0, "root writes to read-only directories")
    def test_unwritable_directory_only_costs_the_work(self):
        with tempfile.TemporaryDirectory() as tmp:
            os.chmod(tmp, stat.S_IRUSR | stat.S_IXUSR)
            try:
                cache = baton.Cache(Path(tmp) / "sub")
                result = baton.transform_ptx(self.ptx, cache=cache)
                self.assertFalse(result.cache_hit)
                self.assertGreater(cache.write_errors, 0)
            finally:
                os.chmod(tmp, stat.S_IRWXU)

    def test_unusable_directory_only_costs_the_work(self):
        with tempfile.NamedTemporaryFile() as f:  # a file where a dir should be
            cache = baton.Cache(Path(f.name) / "sub")
            self.assertFalse(baton.transform_ptx(self.ptx, cache=cache).cache_hit)
            self.assertEqual(cache.write_errors, 2)

    def test_default_directory(self):
        env = {k: v for k, v in os.environ.items()
               if k not in ("BATON_TRITON_CACHE_DIR", "BATON_CACHE_DIR",
                            "XDG_CACHE_HOME")}
        with mock.patch.dict(os.environ, env, clear=True):
            self.assertEqual(_cache.default_cache_dir(),
                             Path.home() / ".cache" / "baton" / "triton")
            os.environ["XDG_CACHE_HOME"] = "/x"
            self.assertEqual(_cache.default_cache_dir(), Path("/x/baton/triton"))
            os.environ["BATON_CACHE_DIR"] = "/b"
            self.assertEqual(_cache.default_cache_dir(), Path("/b/triton"))
            os.environ["BATON_TRITON_CACHE_DIR"] = "/t"
            self.assertEqual(_cache.default_cache_dir(), Path("/t"))

    def test_content_key_is_unambiguous(self):
        self.assertNotEqual(baton.content_key("ab", "c"),
                            baton.content_key("a", "bc"))
        self.assertEqual(baton.content_key("a", b"b"),
                         baton.content_key(b"a", "b"))


if __name__ == "__main__":
    unittest.main()
