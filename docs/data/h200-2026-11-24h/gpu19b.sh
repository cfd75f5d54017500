#!/usr/bin/env bash
set -u
cd "$(dirname "$0")/.."
nvcc -arch=sm_90 -O2 -o /tmp/order_probe build-scratch/order/order_probe.cu || exit 1
/tmp/order_probe 288 73776
/tmp/order_probe 396 73776 | grep -v "^  sm" | head -4
/tmp/order_probe 132 0 | head -3
