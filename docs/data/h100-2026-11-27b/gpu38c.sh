#!/usr/bin/env bash
# Thirty-eighth session, call c (a fresh machine): on the final
# tree, loss with Baton == loss without (check_training.py: GPT, CNN, ViT,
# idle originals on by default); then the large CNN training alone, the
# default against BATON_IDLE_ORIGINAL_BLOCKS_US=0 (route_threshold.py, three
# routed windows between unrouted ones).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/c; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
export PYTHONPATH=$R/build-torch/python BATON_CACHE_DIR=/tmp/bcache-38
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3) -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF"
(cmake -S . -B build-torch $CFG && cmake --build build-torch --target baton_python) > $L/build-torch.log 2>&1 || { tail -20 $L/build-torch.log; exit 1; }
timeout 240 python3 bench/torch/check_training.py --out $L > $L/check.log 2>&1; echo "check rc=$? $(( $(date +%s)-t0 ))s"
sed -n '/==== check_training summary/,$p' $L/check.log
i=0
for v in default off default off; do
  left=$(( 585 - ($(date +%s)-t0) )); [ $left -gt 70 ] || break
  i=$((i+1))
  if [ $v = off ]; then export BATON_IDLE_ORIGINAL_BLOCKS_US=0; else unset BATON_IDLE_ORIGINAL_BLOCKS_US; fi
  timeout $left python3 bench/torch/route_threshold.py --train cnn --scale large --thresholds 100 --seconds 4 --repeat 3 > $L/rt-$i-$v.log 2>&1
  echo "rt $i $v rc=$? $(( $(date +%s)-t0 ))s: $(grep -E 'around' $L/rt-$i-$v.log | tr -s ' ')"
done
cd $OUT && tar czf c.tgz c && rm -rf c
