#!/usr/bin/env bash
# Twenty-second session, call B: per-kernel device time of the large GPT step (ktime.py) and training alone
# (route_threshold.py), the working tree's PTB loop against HEAD's, interleaved; synccheck on HEAD's drain kernel.
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
L=$OUT/c; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $L/gpu.txt 2>&1; cat $L/gpu.txt
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
timeout 100 $SAN --tool synccheck build-gpu/test/variants-gpu/variant_check build-scratch/probe/plain-head build-scratch/probe/m1.txt > $L/synccheck-head.log 2>&1; echo "head synccheck rc=$?"; grep -E "passed|ERROR SUMMARY" $L/synccheck-head.log | head -3
rm -rf /tmp/headwt; git worktree add -f /tmp/headwt HEAD > /dev/null 2>&1
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3)"
(cmake -S . -B build-torch $CFG > $L/tb-new.log 2>&1 && cmake --build build-torch -j8 --target baton_python >> $L/tb-new.log 2>&1) &
(cmake -S /tmp/headwt -B /tmp/headwt/build-torch $CFG -DBATON_PYBIND11_INCLUDE_DIR=$PWD/.deps/pybind11/include > $L/tb-head.log 2>&1 && cmake --build /tmp/headwt/build-torch -j8 --target baton_python >> $L/tb-head.log 2>&1) &
wait; echo "built $(( $(date +%s)-t0 ))s"; tail -1 $L/tb-new.log; tail -1 $L/tb-head.log
run() { # run NAME LOG CMD...
  local v=$1 log=$2; shift 2
  if [ $v = new ]; then PP=$PWD/build-torch/python; else PP=/tmp/headwt/build-torch/python; fi
  PYTHONPATH=$PP BATON_CACHE_DIR=/tmp/bcache-22-$v "$@" > $log 2>&1
}
for v in head; do
  run $v $L/ktime-$v.log timeout 200 python3 build-scratch/ktime.py --scale large; echo "ktime $v rc=$? $(( $(date +%s)-t0 ))s"
  sed -n '/^device time/,$p' $L/ktime-$v.log | head -20
done
i=0
for v in head new head new; do
  left=$(( 590 - ($(date +%s)-t0) )); [ $left -gt 110 ] || break
  i=$((i+1)); run $v $L/rt-$i-$v.log timeout $left python3 bench/torch/route_threshold.py --scale large --thresholds 100 --seconds 5
  echo "rt $i $v rc=$? $(( $(date +%s)-t0 ))s"; tail -3 $L/rt-$i-$v.log
done
rm -f $L/tb-*.log
