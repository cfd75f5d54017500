#!/usr/bin/env bash
# Twenty-fourth session, call j: l2probe with device times of each request.
set -u
cd "$(dirname "$0")/.."
L=$OUT/j; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
timeout 150 python3 build-scratch/l2probe.py > $L/l2probe.log 2>&1; echo "l2probe rc=$?"; grep -v Warn $L/l2probe.log | tail -9
nvidia-smi -q -d PERFORMANCE,CLOCK | grep -iE 'throttle|slowdown|Active|Idle|SM  |Memory  ' | head -20 > $L/smi.txt; cat $L/smi.txt
cd $OUT && tar czf j.tgz j && rm -rf j
