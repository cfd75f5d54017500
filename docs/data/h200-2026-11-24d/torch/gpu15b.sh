#!/usr/bin/env bash
# Fifteenth session: the MLP training check, then issue 6's torch colocation
# with bracketed requests (Baton systems), GPT training.
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
L=$OUT/b; mkdir -p $L
nvidia-smi -L > $L/gpu.txt
timeout 100 python3 bench/colocation/check_train.py $PWD/build-scratch/coloc/libbaton_train_mlp.so > $L/check_train.log 2>&1; echo "check_train rc=$? ($(( $(date +%s)-t0 ))s)"
grep -E "PASS|FAIL|failed" $L/check_train.log
OUT=$L/run timeout 480 bench/torch/run.sh bench --systems settings,alone,baton-alone,baton,baton-procs --deadline 380 > $L/torch.log 2>&1; echo "torch rc=$? $(( $(date +%s)-t0 ))s"
sed -n '/==== torch colocation/,$p' $L/torch.log | head -40
cp $L/run/bench/results.json $L/results.json 2>/dev/null
cd $OUT && tar czf b.tgz b && echo "total $(( $(date +%s)-t0 ))s"
