#!/usr/bin/env bash
# Forty-fifth session, call a: what the leader's hand-out of a first share
# costs. bench/ptb_anatomy with the new form static-slot (the blocks of
# static, handed out through the shared-memory claim and slot as the
# variants do) next to static (every thread computes its block), three
# rounds; then variant_overhead over the MLP's step (the baseline of this
# machine) and the SASS of bias_gelu's three forms.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/a; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
for r in 1 2 3; do
  TMPDIR=$L bash bench/ptb_anatomy/run.sh > $L/probe$r.txt 2>&1; echo "probe $r rc=$? $(( $(date +%s)-t0 ))s"
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
                  " ".join(f"{f} {ratios[f]}" for f in ("late", "static", "static-slot", "static-runs")))
PY
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3)"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu --target variant_overhead) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
D=$R/docs/data/h100-2026-11-27h
for r in 1 2; do
  timeout 150 build-gpu/bench/variant_overhead $D bench/manifests/colocation-mlp.txt > $L/round$r.txt 2>&1
  echo "round $r rc=$? $(( $(date +%s)-t0 ))s"
done
python3 docs/data/h100-2026-11-27g/mlp_weighted.py bench/manifests/colocation-mlp.txt $L/round*.txt | tee $L/summary.txt
ptxas -arch=sm_90a $D/mlp/train_mlp.ptx -o $L/mlp.cubin && for k in '' __baton_slice __baton_ptb; do
  cuobjdump -sass -fun "_ZN12_GLOBAL__N_19bias_geluEPfPKfS0_ii$k" $L/mlp.cubin > $L/bias_gelu$k.sass 2>&1
done
rm -f $L/mlp.cubin
cd $OUT && tar czf a.tgz a && rm -rf a
