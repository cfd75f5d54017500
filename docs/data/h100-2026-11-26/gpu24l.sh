#!/usr/bin/env bash
# Twenty-fourth session, call l (an H100 asked for): training alone routed
# against unrouted, GPT and CNN at the large size, main as committed (issue 6).
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
L=$OUT/l; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) -DBATON_PYBIND11_INCLUDE_DIR=$PWD/.deps/pybind11/include"
(cmake -S . -B build-torch $CFG && cmake --build build-torch --target baton_python) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
export PYTHONPATH=$PWD/build-torch/python BATON_CACHE_DIR=/tmp/bcache-24
i=0
for w in gpt cnn gpt cnn; do
  left=$(( 580 - ($(date +%s)-t0) )); [ $left -gt 70 ] || break
  i=$((i+1))
  timeout $left python3 bench/torch/route_threshold.py --train $w --scale large --thresholds 100 --seconds 5 > $L/rt-$i-$w.log 2>&1
  echo "rt $i $w rc=$? $(( $(date +%s)-t0 ))s: $(grep -E 'routed|again' $L/rt-$i-$w.log | tr -s ' ' | tr '\n' ';')"
done
cd $OUT && tar czf l.tgz l && rm -rf l
