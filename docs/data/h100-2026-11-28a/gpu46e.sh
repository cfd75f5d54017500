#!/usr/bin/env bash
# Forty-sixth session, call e: the GPU tests of the PTB loop with the grid
# in its state (this tree: smemgrid.patch applied, the corpus regenerated
# with its plugin); then the torch.compile GPT step's per-kernel variant
# overhead (bench/torch/variant_overhead.py --scale large) with this tree
# and with main (the patch reversed), as time allows.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/e; mkdir -p $L
P=docs/data/h100-2026-11-28a/smemgrid.patch
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3)"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
timeout 200 ctest --test-dir build-gpu -R 'gpu\.|variants_gpu|Scheduler|python' -E 'preload' --output-on-failure -V > $L/ctest.log 2>&1; echo "ctest rc=$? $(( $(date +%s)-t0 ))s"
grep -E "tests passed|Failed|\*\*\*Timeout|Not Run" $L/ctest.log | head -10
grep -E "[0-9]+ passed, [0-9]+ failed|checks" $L/ctest.log | head -12
gzip -f $L/ctest.log
TCFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include"
(cmake -S . -B build-torch $TCFG && cmake --build build-torch --target baton_python) > $L/build-torch.log 2>&1 || { tail -20 $L/build-torch.log; exit 1; }
PYTHONPATH=$R/build-torch/python BATON_CACHE_DIR=/tmp/bcache-new timeout 200 python3 bench/torch/variant_overhead.py --train gpt --scale large > $L/vo-gpt-new.log 2>&1; echo "vo new rc=$? $(( $(date +%s)-t0 ))s"
grep -E "geometric mean|runtime:" $L/vo-gpt-new.log
left=$(( 570 - ($(date +%s)-t0) ))
if [ $left -gt 120 ]; then
  patch -R -p1 < $P > /dev/null && (cmake -S . -B build-torch-old $TCFG && cmake --build build-torch-old --target baton_python) > $L/build-torch-old.log 2>&1
  patch -p1 < $P > /dev/null
  left=$(( 570 - ($(date +%s)-t0) ))
  PYTHONPATH=$R/build-torch-old/python BATON_CACHE_DIR=/tmp/bcache-old timeout $left python3 bench/torch/variant_overhead.py --train gpt --scale large > $L/vo-gpt-old.log 2>&1; echo "vo old rc=$? $(( $(date +%s)-t0 ))s"
  grep -E "geometric mean|runtime:" $L/vo-gpt-old.log
fi
cd $OUT && tar czf e.tgz e && rm -rf e
