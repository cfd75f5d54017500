#!/usr/bin/env bash
# Twenty-sixth session, call e (H100): training alone, routed / unrouted,
# with OriginalsWhenQuietUpTo (BATON_QUIET_ORIGINALS_UP_TO_US): 0 (the
# default), 500 us, and 1 s (every launch the original while quiet),
# interleaved, large GPT three times each; then the CNN with 0 and 1 s
# (issue 6).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/e; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
t0=$(date +%s)
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include"
(cmake -S . -B build-torch $CFG && cmake --build build-torch --target baton_python) > $L/build-torch.log 2>&1 || { tail -20 $L/build-torch.log; exit 1; }
echo "torch build $(( $(date +%s)-t0 )) s"
export PYTHONPATH=$R/build-torch/python BATON_CACHE_DIR=/tmp/bcache-26
i=0
for s in gpt:0 gpt:500 gpt:1000000 gpt:0 gpt:500 gpt:1000000 gpt:0 gpt:500 cnn:0 cnn:1000000; do
  left=$(( 590 - ($(date +%s)-t0) )); [ $left -gt 45 ] || break
  i=$((i+1)); w=${s%%:*}; b=${s##*:}
  BATON_QUIET_ORIGINALS_UP_TO_US=$b timeout $left python3 bench/torch/route_threshold.py --train $w --scale large --thresholds 100 --seconds 5 > $L/$i-$w-$b.log 2>&1
  echo "$i $w $b rc=$? $(( $(date +%s)-t0 ))s: $(grep -E 'routed|again' $L/$i-$w-$b.log | tr -s ' ' | tr '\n' ';')"
done
cd $OUT && tar czf e.tgz e && rm -rf e
