"""route_threshold.py with the weight-gradient matmuls (mm_t_*) given
their slice variant only: what PTB's claim order costs them in steps/s."""
import os, runpy, sys
here = os.path.dirname(os.path.abspath(__file__))
bench = os.path.join(here, "..", "bench", "torch")
sys.path.insert(0, bench)
import baton.triton as btr
orig_prepare = btr._prepare
def prep(function, kernel, md):
    if "mm_t_" in kernel.name:
        md = dict(md)
        md["ptb_allowed"] = False
    return orig_prepare(function, kernel, md)
btr._prepare = prep
sys.argv = [os.path.join(bench, "route_threshold.py")] + sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
