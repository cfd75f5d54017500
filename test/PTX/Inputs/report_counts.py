"""Prints what a baton-ptx --report says of a module's kernels: how many,
how many got both variants, and each refusal's kind and variants, sorted
(usage: report_counts.py REPORT.json)."""
import json
import sys

with open(sys.argv[1]) as f:
    kernels = json.load(f)["kernels"]
both = [k for k in kernels if all(k["variants"].values())]
print(f"kernels {len(kernels)}")
print(f"both variants {len(both)}")
for kind, variants in sorted((r["kind"], ",".join(r["variants"]))
                             for k in kernels for r in k["refusals"]):
    print(f"refused {variants}: {kind}")
