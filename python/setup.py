"""Builds baton._core with CMake from the repository this directory is in
(python/ needs ../include, ../lib and ../runtime), then packages it with
the Python sources. Metadata are in pyproject.toml.

  pip install ./python                          (build isolation: pybind11
                                                 from PyPI)
  pip install --no-build-isolation ./python     (offline: pybind11 headers
                                                 from .deps/pybind11/include,
                                                 or an installed pybind11)

Environment:
  BATON_PYTHON_BUILD_DIR   CMake build directory to use (reused if it
                           exists: a second install is quick)
  BATON_BUILD_JOBS         parallel build jobs (default: all CPUs)
  BATON_CMAKE_ARGS         more CMake arguments, space-separated
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def _cuda_headers() -> bool:
    homes = [os.environ.get(k) for k in ("CUDA_HOME", "CUDA_PATH")]
    homes += ["/usr/local/cuda"]
    return any(h and (Path(h) / "include" / "cuda.h").exists() for h in homes) \
        or Path("/usr/include/cuda.h").exists()


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        if not (ROOT / "lib" / "Transform").is_dir():
            raise RuntimeError(
                "baton must be built from a checkout of the Baton repository "
                f"(python/ needs {ROOT / 'lib'}); pip copied the directory "
                "elsewhere: use pip >= 21.3, which builds in place")
        if not shutil.which("cmake"):
            raise RuntimeError("cmake is needed to build baton._core")
        build = Path(os.environ.get("BATON_PYTHON_BUILD_DIR")
                     or Path(self.build_temp) / "cmake").resolve()
        args = ["-DCMAKE_BUILD_TYPE=Release", "-DBATON_ENABLE_LLVM=OFF",
                "-DBATON_ENABLE_TESTS=OFF", "-DBATON_ENABLE_TOOLS=OFF",
                "-DBATON_ENABLE_PYTHON=ON",
                f"-DPython3_EXECUTABLE={sys.executable}"]
        if not (ROOT / ".deps" / "pybind11" / "include").is_dir():
            try:
                import pybind11
                args.append(f"-DBATON_PYBIND11_INCLUDE_DIR={pybind11.get_include()}")
            except ImportError:
                pass  # CMake looks for an installed pybind11
        if not _cuda_headers():
            print("baton: cuda.h not found: building without the runtime "
                  "(the transform only)", file=sys.stderr)
            args.append("-DBATON_ENABLE_RUNTIME=OFF")
        if shutil.which("ninja") and not (build / "CMakeCache.txt").exists():
            args += ["-G", "Ninja"]
        args += os.environ.get("BATON_CMAKE_ARGS", "").split()
        subprocess.check_call(["cmake", "-S", str(ROOT), "-B", str(build), *args])
        jobs = os.environ.get("BATON_BUILD_JOBS") or str(os.cpu_count() or 1)
        subprocess.check_call(["cmake", "--build", str(build), "--target",
                               "baton_core", "-j", jobs])
        built = sorted((build / "python" / "baton").glob("_core*.so"))
        if not built:
            raise RuntimeError(f"no _core module under {build}/python/baton")
        target = Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built[-1], target)


setup(ext_modules=[Extension("baton._core", sources=[])],
      cmdclass={"build_ext": CMakeBuild})
