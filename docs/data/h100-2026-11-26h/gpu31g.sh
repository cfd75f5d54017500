#!/usr/bin/env bash
# Thirty-first session, call g (issue 6): what the capture checks cost a
# routed launch. The large GPT trained with torch.compile, routed /
# unrouted (route_threshold.py), with this tree (`new`: each best-effort
# launch asks whether its stream is capturing, and the submit runs in
# relaxed capture mode) and without (`old`: this tree with
# build-scratch/c31/capture.patch, the capture commit's diff of include,
# lib and python, reversed), one Python module built from each, processes
# interleaved; the first pays Inductor's autotuning.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; E=build-scratch/c31; L=$OUT/g; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
t0=$(date +%s)
TCFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include"
(cmake -S . -B build-torch $TCFG && cmake --build build-torch --target baton_python) > $L/build-torch.log 2>&1 || { tail -20 $L/build-torch.log; exit 1; }
patch -R -p1 < $E/capture.patch > /dev/null || exit 1
(cmake -S . -B build-torch-old $TCFG && cmake --build build-torch-old --target baton_python) > $L/build-torch-old.log 2>&1 || { tail -20 $L/build-torch-old.log; patch -p1 < $E/capture.patch; exit 1; }
patch -p1 < $E/capture.patch > /dev/null || exit 1
echo "torch builds $(( $(date +%s)-t0 )) s"
export TRITON_CACHE_DIR=/tmp/tcache-31
i=0
for t in new old new old new old new old; do
  left=$(( 565 - ($(date +%s)-t0) )); [ $left -gt 45 ] || break
  i=$((i+1))
  b=build-torch; [ $t = old ] && b=build-torch-old
  PYTHONPATH=$R/$b/python BATON_CACHE_DIR=/tmp/bcache-31-$t timeout $left python3 bench/torch/route_threshold.py --train gpt --scale large --thresholds 100 --seconds 5 > $L/rt$i-$t.log 2>&1
  echo "$i $t rc=$? $(( $(date +%s)-t0 ))s: $(grep -E 'routed|again' $L/rt$i-$t.log | tr -s ' ' | tr '\n' ';')"
done
cd $OUT && tar czf g.tgz g && rm -rf g
