#!/usr/bin/env bash
# Twenty-fifth session, call d (H100): the SM clock a request runs at after
# a neighbour (issue 5: why a request after training is slower).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/d; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv,noheader | tee $L/gpu.txt
t0=$(date +%s)
nvcc -O2 -arch=sm_90 -shared -Xcompiler -fPIC -o /tmp/clockprobe.so build-scratch/probe/clockprobe.cu > $L/nvcc.log 2>&1 || { cat $L/nvcc.log; exit 1; }
timeout 400 python3 build-scratch/probe/clockprobe.py /tmp/clockprobe.so > $L/clockprobe.log 2>&1; echo "probe rc=$? $(( $(date +%s)-t0 ))s"
grep -v -i warn $L/clockprobe.log | tail -25
cp build-scratch/probe/clockprobe.* $L/
cd $OUT && tar czf d.tgz d && rm -rf d
