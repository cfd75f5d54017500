#!/usr/bin/env bash
# Thirty-sixth session, call g (issue 6, on the final tree): the large GPT
# trained alone, routed against not routed (route_threshold.py, the
# thirty-fourth session's command), and the per-kernel device time of its
# step, originals against the variants they are routed to (ktime.py).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/g; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
t0=$(date +%s)
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3) -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF"
(cmake -S . -B build-torch $CFG && cmake --build build-torch --target baton_python) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
export PYTHONPATH=$R/build-torch/python BATON_CACHE_DIR=/tmp/bcache-36
timeout 300 python3 bench/torch/route_threshold.py --train gpt --scale large --thresholds 100 --seconds 5 > $L/rt.log 2>&1
echo "rt rc=$? $(( $(date +%s)-t0 ))s: $(grep -E 'routed|again' $L/rt.log | tr -s ' ' | tr '\n' ';')"
left=$(( 590 - ($(date +%s)-t0) ))
timeout $left python3 docs/data/h100-2026-11-26m/ktime.py --scale large > $L/ktime.log 2>&1
echo "ktime rc=$? $(( $(date +%s)-t0 ))s"
sed -n '/^device time/,$p' $L/ktime.log | cut -c1-150 | head -26
cd $OUT && tar czf g.tgz g && rm -rf g
