#!/usr/bin/env bash
# Twenty-seventh session, call b (H100): large GPT routed / unrouted under
# settings that each take one part of the routed step's cost away,
# interleaved (issue 6): the default; BATON_SHARE=0 (no registry: first runs
# on the user's stream, dependent finalize); BATON_CLAIM_INTERVAL_US=0 (one
# block a claim); BATON_SHARE=0 with 500 us of originals while quiet.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/b; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
t0=$(date +%s)
TCFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include"
(cmake -S . -B build-torch $TCFG && cmake --build build-torch --target baton_python) > $L/build-torch.log 2>&1 || { tail -20 $L/build-torch.log; exit 1; }
echo "torch build $(( $(date +%s)-t0 )) s"
export PYTHONPATH=$R/build-torch/python BATON_CACHE_DIR=/tmp/bcache-27
i=0
for s in default noshare chunk1 noshare500 default noshare chunk1 noshare500 default noshare; do
  left=$(( 585 - ($(date +%s)-t0) )); [ $left -gt 45 ] || break
  i=$((i+1))
  case $s in
    default) env=() ;;
    noshare) env=(BATON_SHARE=0) ;;
    chunk1) env=(BATON_CLAIM_INTERVAL_US=0) ;;
    noshare500) env=(BATON_SHARE=0 BATON_QUIET_ORIGINALS_UP_TO_US=500) ;;
  esac
  env "${env[@]}" timeout $left python3 bench/torch/route_threshold.py --train gpt --scale large --thresholds 100 --seconds 5 > $L/rt$i-$s.log 2>&1
  echo "$i $s rc=$? $(( $(date +%s)-t0 ))s: $(grep -E 'routed|again' $L/rt$i-$s.log | tr -s ' ' | tr '\n' ';')"
done
cd $OUT && tar czf b.tgz b && rm -rf b
