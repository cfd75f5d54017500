#!/usr/bin/env bash
# Fifteenth session: the MLP with TF32 tensor-core products (blocks short
# enough for preemption): correctness, per-kernel times, colocation.
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
L=$OUT/a; mkdir -p $L
lib=$PWD/build-scratch/coloc/libbaton_train_mlp.so
timeout 200 python3 bench/colocation/check_train.py $lib > $L/check_train.log 2>&1; echo "check_train rc=$? ($(( $(date +%s)-t0 ))s)"
grep -E "PASS|FAIL|failed" $L/check_train.log
for g in tf32 simt; do timeout 60 python3 build-scratch/kprof.py $lib $g > $L/kprof-$g.log 2>&1; head -12 $L/kprof-$g.log; done
cd bench/colocation
timeout 200 python3 colocate.py --lib $lib --out $L/tf32 --loads 0.3,0.5,0.7 --systems alone,baton-train-alone,baton-time,baton-space --rounds 2 --deadline 190 > $L/tf32.log 2>&1
echo "== tf32 rc=$? ($(( $(date +%s)-t0 ))s)"
sed -n '/^====/,$p' $L/tf32.log | cut -c1-200 | head -40
left=$(( 560 - ($(date +%s)-t0) ))
if [ $left -gt 80 ]; then
  timeout $left python3 colocate.py --lib $lib --out $L/simt --train-gemm simt --loads 0.5 --systems alone,baton-train-alone,baton-time --rounds 2 --deadline $((left-15)) > $L/simt.log 2>&1
  echo "== simt rc=$? ($(( $(date +%s)-t0 ))s)"
  sed -n '/^====/,$p' $L/simt.log | cut -c1-200 | head -30
fi
cd $L && tar czf logs.tgz *.log */results.json */children.log 2>/dev/null; echo "total $(( $(date +%s)-t0 ))s"
