#!/usr/bin/env bash
# Thirty-sixth session, call a: block estimates per occupancy.
# 1. GPU tests and the scheduler's unit tests on this tree; the colocation
#    MLP's training check with the new library.
# 2. The thirty-fifth session's pathological bound (300 us: bert p99 7.7 ms,
#    the width swinging between the products' full-occupancy and prompt
#    block times) with the library before the change (build-scratch/old-mlp,
#    built from 6ea7c74) and after it, interleaved; alone in the same round.
#    50% load, 3 s windows, the same arrivals everywhere (--service-ms).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/a; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
NEW=$R/build/bench/colocation/libbaton_train_mlp.so
OLD=$R/build-scratch/old-mlp/libbaton_train_mlp.so
timeout 100 python3 bench/colocation/check_train.py $NEW > $L/check_train.log 2>&1; echo "check_train rc=$? ($(( $(date +%s)-t0 ))s)"
tail -2 $L/check_train.log
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3)"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
timeout 200 ctest --test-dir build-gpu -R 'gpu\.|variants_gpu|Scheduler' -E 'preload' --output-on-failure > $L/ctest.log 2>&1; echo "ctest rc=$? $(( $(date +%s)-t0 ))s"
grep -E "tests passed|Failed|\*\*\*Timeout" $L/ctest.log | head -10
cd bench/colocation
for r in 1 2 3; do
  for T in alone old new; do
    case $T in
      alone) LIB=$NEW; SYS=alone ;;
      old) LIB=$OLD; SYS=baton-time ;;
      new) LIB=$NEW; SYS=baton-time ;;
    esac
    BATON_PREEMPTION_BOUND_US=300 timeout 100 python3 colocate.py --lib $LIB --out $L/r$r-$T --rounds 1 --deadline 90 --window 3 --loads 0.5 --service-ms bert=0.31,cnn=0.92 --systems $SYS > $L/r$r-$T.log 2>&1
    echo "round $r $T rc=$? ($(( $(date +%s)-t0 ))s)"
    gzip -f $L/r$r-$T/latencies.json $L/r$r-$T/children.log
  done
done
python3 - $L <<'PY'
import json, sys, glob, os, gzip
rows = {}
pool = {}
for f in sorted(glob.glob(sys.argv[1] + "/r*-*/results.json")):
    tag = os.path.basename(os.path.dirname(f))
    r, t = tag.split("-")
    res = json.load(open(f))
    sysname = "alone" if t == "alone" else "baton-time"
    lat = json.load(gzip.open(os.path.dirname(f) + "/latencies.json.gz"))
    for rec in res["rounds"]:
        for kind in ("bert", "cnn"):
            for w in rec["runs"][sysname]["models"][kind]["windows"]:
                steps = w.get("train_steps_per_s")
                rows.setdefault((kind, t), []).append(
                    f"{r}: p50 {w['p50_ms']*1e3:.0f} p99 {w['p99_ms']*1e3:.0f}"
                    + (f" steps {steps:.0f}" if steps else ""))
    for run, models in lat.items():
        for kind, loads in models.items():
            for load, l in loads.items():
                pool.setdefault((kind, t), []).extend(l)
for k in sorted(rows):
    print(k, " | ".join(rows[k]))
def pct(l, q):
    l = sorted(l); return l[min(len(l) - 1, int(q * len(l)))]
for k in sorted(pool):
    l = pool[k]
    print("pooled", k, len(l), "p50", pct(l, .5), "p99", pct(l, .99), "p99.9", pct(l, .999))
PY
cd $OUT && tar czf a.tgz a && rm -rf a
