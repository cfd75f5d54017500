#!/usr/bin/env bash
# Forty-first session, call a.
# 1. Robustness: does a warp reconvergence (bar.warp.sync) in
#    recursive_fib's PTB variant stop the hang of the fortieth session?
#    fib_check compares each hand-edited form (fib_variants.py) with the
#    original, on full (128), partial (48, 33) and one-warp (32) blocks.
# 2. Issue 5: colocate.py's whole sweep (every default system, loads
#    10-90%, one round) on this tree, then plot.py.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/a; mkdir -p $L
D=$R/docs/data/h100-2026-11-27e
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
g++ -std=c++20 -O2 -I include -I /usr/local/cuda/include $D/fib_check.cpp -o $L/fib_check -L/usr/local/cuda/lib64/stubs -lcuda -lpthread || exit 1
python3 $D/fib_variants.py $R/docs/data/h100-2026-11-27d/d/calls-nvcc-xformed.ptx $L || exit 1
for form in asis endsync callsync topsync; do
  for threads in 128 48 33 32; do
    for workers in 3 1; do
      [ $form = asis ] && [ $workers = 1 ] && continue
      out=$(timeout 20 $L/fib_check $L/$form.ptx $threads $workers 2>&1); rc=$?
      echo "$form threads=$threads workers=$workers rc=$rc | $out"
    done
  done
done | tee $L/fib.txt
rm -f $L/fib_check $L/*.ptx
echo "fib done $(( $(date +%s)-t0 ))s"
LIB=$R/build/bench/colocation/libbaton_train_mlp.so
cd bench/colocation
timeout $(( 590 - ($(date +%s)-t0) )) python3 colocate.py --lib $LIB --out $L/coloc --rounds 2 --deadline $(( 530 - ($(date +%s)-t0) )) > $L/colocation.log 2>&1
echo "colocate rc=$? ($(( $(date +%s)-t0 ))s)"
python3 plot.py $L/coloc/results.json $L/coloc > $L/plot.log 2>&1; echo "plot rc=$?"
gzip -f $L/coloc/latencies.json $L/coloc/children.log 2>/dev/null
tail -30 $L/colocation.log
cd $OUT && tar czf a.tgz a && rm -rf a
