#!/usr/bin/env bash
# Eighteenth session: launch_chain before/after fresh task slots; ktime with PTB first runs on the user's stream.
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
L=$OUT/c; mkdir -p $L
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$PWD/.deps > /dev/null 2>&1 && cmake --build build-gpu -j16 --target launch_chain baton-ptx > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
(cmake -S build-scratch/base -B build-base -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$PWD/.deps > /dev/null 2>&1 && cmake --build build-base -j16 --target launch_chain > $L/base-build.log 2>&1) || { tail -20 $L/base-build.log; }
build-gpu/tools/baton-ptx/baton-ptx test/gpu/kernels/record.ptx -o /tmp/record.ptx
for i in 1 2; do
  echo "== base $i" >> $L/launch_chain.log; timeout 60 build-base/bench/runtime/launch_chain /tmp/record.ptx 400 >> $L/launch_chain.log 2>&1
  echo "== new $i" >> $L/launch_chain.log; timeout 60 build-gpu/bench/runtime/launch_chain /tmp/record.ptx 400 >> $L/launch_chain.log 2>&1
done
echo "launch_chain $(( $(date +%s)-t0 ))s"; grep -vE "^launch_chain on" $L/launch_chain.log
cmake -S . -B build-torch -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) > $L/tbuild.log 2>&1 && cmake --build build-torch -j16 --target baton_python >> $L/tbuild.log 2>&1 || { tail -20 $L/tbuild.log; exit 1; }
export PYTHONPATH=$PWD/build-torch/python BATON_CACHE_DIR=$PWD/build-scratch/bcache
left=$(( 590 - ($(date +%s)-t0) ))
BATON_SHARE=0 timeout $left python3 build-scratch/ktime.py --scale large > $L/ktime-noshare.log 2>&1; echo "ktime rc=$? $(( $(date +%s)-t0 ))s"
sed -n '/^device time/,$p' $L/ktime-noshare.log | head -12
cd $OUT && tar czf c.tgz c && rm -rf c
