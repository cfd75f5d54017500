#!/usr/bin/env bash
# #6 at the large size, kernels >= 100 us routed: which knob moves training
# alone toward 0.97? Default, claim interval 50 us, quiet window 2 and 8,
# registers not held (BATON_FIT_REGISTERS=0).
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
L=$OUT/j; mkdir -p $L
cmake -S . -B build-torch -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) > $L/build.log 2>&1 && cmake --build build-torch -j 16 --target baton_python >> $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
echo "build $(( $(date +%s)-t0 ))s"
export PYTHONPATH=$PWD/build-torch/python BATON_CACHE_DIR=$PWD/build-scratch/bcache
rt() { # NAME ENV...
  local n=$1; shift
  local left=$(( 585 - ($(date +%s)-t0) ))
  [ $left -lt 70 ] && { echo "$n skipped"; return; }
  env "$@" timeout $left python3 bench/torch/route_threshold.py --scale large --thresholds 100 --seconds 4 > $L/rt-$n.log 2>&1
  echo "$n rc=$? $(( $(date +%s)-t0 ))s: $(grep -E 'routed|not' $L/rt-$n.log | tr -s ' ' | tr '\n' ';')"
}
rt default X=1
rt claim50 BATON_CLAIM_INTERVAL_US=50
rt quiet2 BATON_LAUNCHES_AHEAD_QUIET=2
rt quiet8 BATON_LAUNCHES_AHEAD_QUIET=8
rt free BATON_FIT_REGISTERS=0
rt default2 X=1
echo "total $(( $(date +%s)-t0 ))s"
