#!/usr/bin/env bash
# Twenty-seventh session, call c (H100): what the first latency-critical
# request after a quiet spell pays on the device when every best-effort
# launch runs as the original while quiet (issue 6's trade):
# quiet_first_request.py --graph (bert replayed from a CUDA graph in a
# bracket, device time from events on its stream), requests 150 ms apart,
# beside the large GPT: default against BATON_QUIET_ORIGINALS_UP_TO_US=1e6,
# interleaved, and with no training.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/c; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
t0=$(date +%s)
TCFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include"
(cmake -S . -B build-torch $TCFG && cmake --build build-torch --target baton_python) > $L/build-torch.log 2>&1 || { tail -20 $L/build-torch.log; exit 1; }
echo "torch build $(( $(date +%s)-t0 )) s"
export PYTHONPATH=$R/build-torch/python BATON_CACHE_DIR=/tmp/bcache-27
i=0
for s in 0 1000000 none 0 1000000 0 1000000; do
  left=$(( 585 - ($(date +%s)-t0) )); [ $left -gt 45 ] || break
  i=$((i+1))
  if [ $s = none ]; then
    timeout $left python3 bench/torch/quiet_first_request.py --graph --requests 30 --no-training > $L/q$i-none.log 2>&1
  else
    BATON_QUIET_ORIGINALS_UP_TO_US=$s timeout $left python3 bench/torch/quiet_first_request.py --graph --requests 30 > $L/q$i-$s.log 2>&1
  fi
  echo "$i $s rc=$? $(( $(date +%s)-t0 ))s: $(grep -E '^(gap|latency|device)' $L/q$i-$s.log | tr -s ' ' | tr '\n' ';')"
done
cd $OUT && tar czf c.tgz c && rm -rf c
