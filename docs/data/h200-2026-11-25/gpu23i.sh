#!/usr/bin/env bash
# Twenty-third session, call i: issue 5's benchmark on the H100 with main as
# it is (task ABI 4, plain finalize for shared BE): every system, both
# models, loads 10-90%, two rounds, and the plots. The MLP library was built
# here with the clang plugin (build/bench/colocation) and carried.
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
L=$OUT/i; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
lib=$PWD/build-scratch/coloc/libbaton_train_mlp.so
cd bench/colocation
timeout 560 python3 colocate.py --lib $lib --out $L/coloc --rounds 2 --deadline 520 > $L/colocation.log 2>&1
echo "colocate rc=$? ($(( $(date +%s)-t0 ))s)"
python3 plot.py $L/coloc/results.json $L/coloc > $L/plot.log 2>&1; echo "plot rc=$?"
gzip -f $L/coloc/latencies.json
sed -n '/^====/,$p' $L/colocation.log | cut -c1-160 | head -70
echo "total $(( $(date +%s)-t0 ))s"
cd $OUT && tar czf i.tgz i && rm -rf i
