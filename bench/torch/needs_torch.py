"""Imported by the GPU checks that ctest runs before they import torch:
without PyTorch (a CI machine) the check is skipped, visibly, with exit
status 77 (ctest's SKIP_RETURN_CODE)."""
import sys

try:
    import torch  # noqa: F401
except ImportError:
    print("SKIPPED: PyTorch is not installed", flush=True)
    sys.exit(77)
