"""Per library: kernels by the variants they got; refusals by kind, with
one example each. Reads the --report JSON files of sweep.sh."""
import collections
import glob
import json
import os
import sys

made = collections.Counter()
kinds = collections.Counter()
example = {}
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
    lib = os.path.basename(path).split("__")[0]
    for k in json.load(open(path))["kernels"]:
        got = ",".join(v for v, x in sorted(k["variants"].items()) if x)
        made[(lib, got or "none")] += 1
        for r in k["refusals"]:
            kinds[r["kind"]] += 1
            example.setdefault(r["kind"], f"{lib}: {r['construct'][:70]}")
total = sum(made.values())
print(f"{total} kernels")
for (lib, got), n in sorted(made.items()):
    print(f"  {lib:36} {got:10} {n:6}")
print("refusals:")
for kind, n in kinds.most_common():
    print(f"  {n:6} {kind:22} e.g. {example[kind]}")
