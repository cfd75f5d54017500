#!/usr/bin/env bash
# Forty-third session, call d: the PTB anatomy probe (bench/ptb_anatomy)
# with late-gpu and c4-gpu added (`preempt` read at GPU scope), five rounds;
# the SASS of the preempt reads.
set -u
cd "$(dirname "$0")/../../.."
L=$OUT/d; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
for r in 1 2 3 4 5; do
  bench/ptb_anatomy/run.sh 262144 1048576 4194304 > $L/round$r.txt 2>&1
  echo "round $r rc=$?"; grep -v '^device' $L/round$r.txt
done
cuobjdump -sass ${TMPDIR:-/tmp}/baton_ptb_anatomy | grep -E "Function|LDG.*STRONG|ATOM|RED" > $L/sass.txt 2>&1
grep -c . $L/sass.txt; grep -E "Function : .*E0EE|Function : .*E16EE|STRONG" $L/sass.txt | head -20
