#!/usr/bin/env bash
# Twentieth session: what a finalize launched as a programmatic dependent launch saves on the launch chain.
set -u
cd "$(dirname "$0")/.."
L=$OUT/a; mkdir -p $L
nvcc -O2 -arch=sm_90 bench/launch_chain_probe/chain_probe.cu -lcuda -o /tmp/cp && timeout 200 /tmp/cp > $L/chain_probe.log 2>&1; echo "rc=$?"
cat $L/chain_probe.log
