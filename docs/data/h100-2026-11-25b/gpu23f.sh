#!/usr/bin/env bash
# Twenty-third session, call f: what the plain finalize costs a torch.compile
# training job alone (issue 6): route_threshold.py with the process in the
# registry (plain finalize, as main now routes it) against BATON_SHARE=0
# (dependent finalize), interleaved.
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
L=$OUT/f; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) -DBATON_PYBIND11_INCLUDE_DIR=$PWD/.deps/pybind11/include"
(cmake -S . -B build-torch $CFG && cmake --build build-torch --target baton_python) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
i=0
for v in shared noshare shared noshare; do
  left=$(( 590 - ($(date +%s)-t0) )); [ $left -gt 80 ] || break
  i=$((i+1)); env=(); [ $v = noshare ] && env=(BATON_SHARE=0)
  env "${env[@]}" PYTHONPATH=$PWD/build-torch/python BATON_CACHE_DIR=/tmp/bcache-23 timeout $left python3 bench/torch/route_threshold.py --scale large --thresholds 100 --seconds 5 > $L/rt-$i-$v.log 2>&1
  echo "rt $i $v rc=$? $(( $(date +%s)-t0 ))s"; tail -4 $L/rt-$i-$v.log
done
cd $OUT && tar czf f.tgz f && rm -rf f
