#!/usr/bin/env bash
# Forty-seventh session, call a: the torch.compile training steps'
# variant overhead with launches paired site by site
# (bench/torch/variant_overhead.py as changed in this session: the k-th
# launch of a kernel in a step against the same launch of the original
# run, with the variant's grid and its gap after the kernel ahead of it),
# the GPT's and then the CNN's, large size. Keeps both profiler traces.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/a; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
TCFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include"
(cmake -S . -B build-torch $TCFG && cmake --build build-torch --target baton_python) > $L/build-torch.log 2>&1 || { tail -20 $L/build-torch.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
export PYTHONPATH=$R/build-torch/python BATON_CACHE_DIR=/tmp/bcache-a
for w in gpt cnn; do
  left=$(( 570 - ($(date +%s)-t0) )); [ $left -gt 60 ] || break
  timeout $left python3 bench/torch/variant_overhead.py --train $w --scale large --trace-dir $L/trace-$w > $L/vo-$w.log 2>&1; echo "vo $w rc=$? $(( $(date +%s)-t0 ))s"
  gzip -f $L/trace-$w/*.json 2>/dev/null
  sed -n '/training, large size/,$p' $L/vo-$w.log | cut -c1-150
done
cd $OUT && tar czf a.tgz a && rm -rf a
