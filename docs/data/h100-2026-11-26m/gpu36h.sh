#!/usr/bin/env bash
# Thirty-sixth session, call h (issue 6): call g's routed / unrouted figure
# (0.933, the machine's first process) against the package before the
# session (build-scratch/old-src: `git archive 6ea7c74`), interleaved on a
# warm machine: route_threshold.py, old, new, old, new.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/h; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
t0=$(date +%s)
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3) -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF"
(cmake -S . -B build-torch $CFG && cmake --build build-torch --target baton_python) > $L/build-new.log 2>&1 || { tail -20 $L/build-new.log; exit 1; }
(cmake -S build-scratch/old-src -B build-scratch/old-torch $CFG && cmake --build build-scratch/old-torch --target baton_python) > $L/build-old.log 2>&1 || { tail -20 $L/build-old.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
i=0
for v in old new old new; do
  left=$(( 590 - ($(date +%s)-t0) )); [ $left -gt 100 ] || break
  i=$((i+1))
  if [ $v = new ]; then PP=$R/build-torch/python; else PP=$R/build-scratch/old-torch/python; fi
  PYTHONPATH=$PP BATON_CACHE_DIR=/tmp/bcache-36-$v timeout $left python3 bench/torch/route_threshold.py --train gpt --scale large --thresholds 100 --seconds 5 > $L/rt-$i-$v.log 2>&1
  echo "rt $i $v rc=$? $(( $(date +%s)-t0 ))s: $(grep -E 'routed|again' $L/rt-$i-$v.log | tr -s ' ' | tr '\n' ';')"
done
cd $OUT && tar czf h.tgz h && rm -rf h
