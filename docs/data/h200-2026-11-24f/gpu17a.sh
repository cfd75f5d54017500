#!/usr/bin/env bash
# Seventeenth session: per-kernel device time, originals vs PTB variants (large GPT).
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
L=$OUT/a; mkdir -p $L
nvidia-smi -L > $L/gpu.txt
cmake -S . -B build-torch -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) > $L/tbuild.log 2>&1 && cmake --build build-torch -j16 --target baton_python >> $L/tbuild.log 2>&1 || { tail -20 $L/tbuild.log; exit 1; }
echo "torch build $(( $(date +%s)-t0 ))s"
export PYTHONPATH=$PWD/build-torch/python BATON_CACHE_DIR=$PWD/build-scratch/bcache
timeout 400 python3 build-scratch/ktime.py --scale large > $L/ktime.log 2>&1; echo "ktime rc=$? $(( $(date +%s)-t0 ))s"
sed -n '/^device time/,$p' $L/ktime.log
cd $OUT && tar czf a.tgz a && rm -rf a
