#!/usr/bin/env bash
# Forty-seventh session, call e, on call c's machine: training alone, the
# large GPT, routed (kernels of 100 us or more) against unrouted windows
# (route_threshold.py, as in the thirty-eighth session), with first shares
# for launches issued paused and without (call c's /tmp/old), alternating
# as time allows.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/e; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
TCFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include"
[ -f /tmp/old/build-torch/python/baton/__init__.py ] || [ -d /tmp/old/build-torch/python ] || { echo "no old tree"; exit 1; }
(cmake -S . -B build-torch $TCFG && cmake --build build-torch --target baton_python) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
export BATON_CACHE_DIR=/tmp/bcache-c
i=0
for t in new old new old; do
  left=$(( 490 - ($(date +%s)-t0) )); [ $left -gt 90 ] || break
  i=$((i+1))
  [ $t = new ] && P=$R/build-torch/python || P=/tmp/old/build-torch/python
  PYTHONPATH=$P timeout $left python3 bench/torch/route_threshold.py --train gpt --scale large --thresholds 100 --seconds 4 --repeat 3 > $L/rt-$i-$t.log 2>&1
  echo "rt $i $t rc=$? $(( $(date +%s)-t0 ))s: $(grep -E 'around' $L/rt-$i-$t.log | tr -s ' ')"
done
cd $OUT && tar czf e.tgz e && rm -rf e
