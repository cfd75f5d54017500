#!/usr/bin/env bash
# Sixteenth session, call A: the resume probe (driver only), and exactly_once
# with the "resumed under a sync" case against the committed runtime, with
# native stacks if it hangs.
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
L=$OUT/a; mkdir -p $L
gcc -O1 -g -shared -fPIC build-scratch/dump/stackdump.c -o /tmp/stackdump.so -lpthread
nvcc -O2 -arch=sm_90 bench/launch_chain_probe/resume_probe.cu -lcuda -o /tmp/resume_probe 2>&1 | tail -3
for conn in 32 8; do
  for src in fresh early reused pooled; do
    for sync in 0 1; do
      CUDA_MODULE_LOADING=EAGER CUDA_DEVICE_MAX_CONNECTIONS=$conn timeout 60 /tmp/resume_probe $src $sync 64 2>&1 | tail -3
    done
  done
done | tee $L/resume_probe.log
echo "probe done $(( $(date +%s)-t0 ))s"
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$PWD/.deps > /dev/null 2>&1 && cmake --build build-gpu -j16 --target exactly_once baton-ptx > $L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
build-gpu/tools/baton-ptx/baton-ptx test/gpu/kernels/record.ptx -o /tmp/record.ptx
rm -f /tmp/trig-eo
( sleep 75; touch /tmp/trig-eo ) &
STACKDUMP_TRIGGER=/tmp/trig-eo LD_PRELOAD=/tmp/stackdump.so timeout 85 stdbuf -oL build-gpu/test/gpu/exactly_once /tmp/record.ptx > $L/exactly_once.log 2>&1; echo "exactly_once rc=$? ($(( $(date +%s)-t0 ))s)"
grep -v "^/\|^===" $L/exactly_once.log | tail -8
cp build-gpu/test/gpu/exactly_once $L/
cd $OUT && tar czf a.tgz a; echo "total $(( $(date +%s)-t0 ))s"
