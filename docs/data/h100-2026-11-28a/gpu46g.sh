#!/usr/bin/env bash
# Forty-sixth session, call g (main at c6470d1): (1) the probe on tiny
# grids (64 and 256 blocks), three rounds, for what a launch with the PTB
# variants' extra dynamic shared memory costs a kernel of a few us
# (static against static-dsmem); (2) the torch.compile training steps'
# per-kernel variant overhead (bench/torch/variant_overhead.py --scale
# large), the GPT's and then, as time allows, the CNN's.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/g; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
for r in 1 2 3; do
  TMPDIR=$L bash bench/ptb_anatomy/run.sh 16384 65536 > $L/probe$r.txt 2>&1; echo "probe $r rc=$?"
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
                  " ".join(f"{f} {ratios[f]}" for f in ("late", "first", "static", "static-dsmem", "static-slot", "slot-smemgrid")))
PY
TCFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include"
(cmake -S . -B build-torch $TCFG && cmake --build build-torch --target baton_python) > $L/build-torch.log 2>&1 || { tail -20 $L/build-torch.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
export PYTHONPATH=$R/build-torch/python BATON_CACHE_DIR=/tmp/bcache-g
for w in gpt cnn; do
  left=$(( 560 - ($(date +%s)-t0) )); [ $left -gt 60 ] || break
  timeout $left python3 bench/torch/variant_overhead.py --train $w --scale large > $L/vo-$w.log 2>&1; echo "vo $w rc=$? $(( $(date +%s)-t0 ))s"
  sed -n '/training, large size/,$p' $L/vo-$w.log | cut -c1-120
done
cd $OUT && tar czf g.tgz g && rm -rf g
