#!/usr/bin/env bash
# Twenty-fifth session, call e (H100): where a bert request's time goes at
# 10% load: alone, inside Baton's bracket with no training, and with the
# MLP training time-shared beside it (issue 5).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/e; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
t0=$(date +%s)
LIB=$R/build-scratch/coloc/libbaton_train_mlp.so
for m in alone bracket time alone bracket time; do
  timeout 60 python3 build-scratch/probe/reqphases.py $LIB $m 4 > $L/$m.log 2>&1; echo "$m rc=$? $(( $(date +%s)-t0 ))s"
  grep -v -i warn $L/$m.log | tail -9
done
cp build-scratch/probe/reqphases.py $L/
cd $OUT && tar czf e.tgz e && rm -rf e
