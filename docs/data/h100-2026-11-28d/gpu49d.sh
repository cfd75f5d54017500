#!/usr/bin/env bash
# Forty-ninth session, call d: the GPU tests with covering first shares on
# by default (SchedulerOptions::CoveringFirstShares), then the large GPT's
# torch.compile training alone (issue 6), kernels of 100 us and more routed,
# over the unrouted windows around them, with covering shares (the new
# default) and without (BATON_COVERING_SHARES=0), processes alternated.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/d; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3)"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu) > $L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
TCFG="$CFG -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF"
(cmake -S . -B build-torch $TCFG && cmake --build build-torch --target baton_python) > $L/build-torch.log 2>&1 || { tail -20 $L/build-torch.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
timeout 260 ctest --test-dir build-gpu -R 'gpu\.|variants_gpu|Scheduler|python' -E 'preload' --output-on-failure > $L/ctest.log 2>&1; echo "ctest rc=$? $(( $(date +%s)-t0 ))s"
grep -E "tests passed|Failed|\*\*\*Timeout" $L/ctest.log | head -12
gzip -f $L/ctest.log
export PYTHONPATH=$R/build-torch/python BATON_CACHE_DIR=/tmp/bcache-d
i=0
for C in 1 0; do
  i=$((i+1)); left=$(( 585 - ($(date +%s)-t0) )); [ $left -gt 100 ] || { echo "no time for run $i"; break; }
  BATON_COVERING_SHARES=$C timeout $left python3 bench/torch/route_threshold.py --train gpt --scale large --thresholds 100 --seconds 4 --repeat 3 > $L/run$i-c$C.log 2>&1
  echo "run $i covering $C rc=$? $(( $(date +%s)-t0 ))s: $(grep 'over the unrouted' $L/run$i-c$C.log | cut -d: -f2)"
done
cd $OUT && tar czf d.tgz d && rm -rf d
