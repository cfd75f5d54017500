#!/usr/bin/env bash
# Eighteenth session: launch_chain base / v2 (finalize resets, no reuse) / new; training alone twice.
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
L=$OUT/f; mkdir -p $L
git log --oneline -1 > $L/commit.txt
cfg="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$PWD/.deps"
cmake -S . -B build-gpu $cfg > /dev/null 2>&1 && cmake --build build-gpu -j16 --target launch_chain baton-ptx > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
for t in base v2; do (cmake -S build-scratch/$t -B build-$t $cfg > /dev/null 2>&1 && cmake --build build-$t -j16 --target launch_chain > $L/$t-build.log 2>&1) || tail -20 $L/$t-build.log; done
build-gpu/tools/baton-ptx/baton-ptx test/gpu/kernels/record.ptx -o /tmp/record.ptx
for i in 1 2; do for t in base v2 gpu; do
  echo "== $t $i" >> $L/launch_chain.log; timeout 60 build-$t/bench/runtime/launch_chain /tmp/record.ptx 400 >> $L/launch_chain.log 2>&1
done; done
echo "launch_chain $(( $(date +%s)-t0 ))s"; grep -E "==| ptb | scheduled" $L/launch_chain.log
cmake -S . -B build-torch -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) > $L/tbuild.log 2>&1 && cmake --build build-torch -j16 --target baton_python >> $L/tbuild.log 2>&1 || { tail -20 $L/tbuild.log; exit 1; }
export PYTHONPATH=$PWD/build-torch/python BATON_CACHE_DIR=$PWD/build-scratch/bcache
for i in 1 2; do
left=$(( 590 - ($(date +%s)-t0) ))
[ $left -gt 60 ] || break
timeout $left python3 bench/torch/route_threshold.py --scale large --thresholds 100 --seconds 5 > $L/rt-large-$i.log 2>&1; echo "rt $i rc=$? $(( $(date +%s)-t0 ))s"
tail -3 $L/rt-large-$i.log
done
cd $OUT && tar czf f.tgz f && rm -rf f
