#!/usr/bin/env bash
# Forty-sixth session, call a: (1) the probe's hand-out of a share with its
# first fetch's loads in one round (slot-1load) and with the next block
# published before the body (slot-early), three rounds; (2) variant_overhead
# over the MLP's step, the plugin's PTX of main (h100-2026-11-27h/mlp)
# against the plugin that loads the first fetch's grid in the prologue
# (this directory's mlp/), interleaved, three rounds each.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/a; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3)"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu --target variant_overhead) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
for r in 1 2 3; do
  TMPDIR=$L bash bench/ptb_anatomy/run.sh > $L/probe$r.txt 2>&1; echo "probe $r rc=$?"
done
rm -f $L/baton_ptb_anatomy
python3 - $L/probe*.txt <<'PY' | tee $L/probe-summary.txt
import sys
forms = None
for path in sys.argv[1:]:
    for line in open(path):
        p = line.split()
        if p and p[0] == "elements":
            forms = p[3:]
        elif p and p[0].isdigit() and forms:
            ratios = dict(zip(forms, p[4::2]))
            print(path.rsplit("/", 1)[1], p[1], "blocks: orig", p[2], "us",
                  " ".join(f"{f} {ratios[f]}" for f in ("static", "static-slot", "slot-1load", "slot-early", "slot-early-1load")))
PY
OLD=$R/docs/data/h100-2026-11-27h; NEW=$R/docs/data/h100-2026-11-28a
for r in 1 2 3; do
  timeout 100 build-gpu/bench/variant_overhead $OLD bench/manifests/colocation-mlp.txt > $L/old$r.txt 2>&1
  timeout 100 build-gpu/bench/variant_overhead $NEW bench/manifests/colocation-mlp.txt > $L/new$r.txt 2>&1
  echo "round $r rc=$? $(( $(date +%s)-t0 ))s"
done
python3 docs/data/h100-2026-11-27g/mlp_weighted.py bench/manifests/colocation-mlp.txt $L/old*.txt $L/new*.txt | grep -E "txt|slice|sched|nofirst" | tee $L/summary.txt
for f in $L/new1.txt $L/old1.txt; do echo "== $f"; cut -c31-60,86-100,150-200 $f; done
cd $OUT && tar czf a.tgz a && rm -rf a
