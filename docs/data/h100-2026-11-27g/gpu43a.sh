#!/usr/bin/env bash
# Forty-third session, call a: the PTB anatomy probe (bench/ptb_anatomy):
# what a short PTB block pays for, form by form, three rounds.
set -u
cd "$(dirname "$0")/../../.."
L=$OUT/a; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
for r in 1 2 3; do
  bench/ptb_anatomy/run.sh 262144 1048576 4194304 > $L/round$r.txt 2>&1
  echo "round $r rc=$?"; cat $L/round$r.txt
done
