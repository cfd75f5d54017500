#!/usr/bin/env bash
# Twenty-eighth session, call b (H100): large GPT routed / unrouted, issue 6.
# Does running a queue's launches on the user's stream, with no private
# stream hop, reach 0.97? BATON_SHARE=0 (no registry: launches issued
# running go on the user's stream, dependent finalize) with the quiet
# window at its cap of 16 (BATON_LAUNCHES_AHEAD_QUIET=16: fewer launches
# issued paused, which resume on private streams), against the default
# and BATON_SHARE=0 alone, interleaved. Then keeps the PTX of Inductor's
# templates (Triton's cache) for ptxas -v here.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/b; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
t0=$(date +%s)
TCFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include"
(cmake -S . -B build-torch $TCFG && cmake --build build-torch --target baton_python) > $L/build-torch.log 2>&1 || { tail -20 $L/build-torch.log; exit 1; }
echo "torch build $(( $(date +%s)-t0 )) s"
export PYTHONPATH=$R/build-torch/python BATON_CACHE_DIR=/tmp/bcache-28 TRITON_CACHE_DIR=/tmp/tcache-28
i=0
for s in default ns16 noshare default ns16 noshare default ns16 noshare; do
  left=$(( 540 - ($(date +%s)-t0) )); [ $left -gt 45 ] || break
  i=$((i+1))
  case $s in
    default) env=() ;;
    noshare) env=(BATON_SHARE=0) ;;
    ns16) env=(BATON_SHARE=0 BATON_LAUNCHES_AHEAD_QUIET=16) ;;
  esac
  env "${env[@]}" timeout $left python3 bench/torch/route_threshold.py --train gpt --scale large --thresholds 100 --seconds 5 > $L/rt$i-$s.log 2>&1
  echo "$i $s rc=$? $(( $(date +%s)-t0 ))s: $(grep -E 'routed|again' $L/rt$i-$s.log | tr -s ' ' | tr '\n' ';')"
done
mkdir -p $L/tem
for f in $(grep -l -s '^.visible .entry triton_tem' $(find /tmp/tcache-28 -name '*.ptx') | head -40); do
  cp "$f" $L/tem/
  j=${f%.ptx}.json; [ -f "$j" ] && cp "$j" $L/tem/
done
ls $L/tem | wc -l
cd $OUT && tar czf b.tgz b && rm -rf b
