#!/usr/bin/env bash
# Twenty-fifth session, call f (H100): LC brackets posted to the scheduler's
# thread instead of taken on the caller's (issue 5). GPU tests; a bert
# request's phases (reqphases.py) and colocate.py at 10% and 50% load, with
# the colocation MLP built from HEAD (coloc-head) and from the change (coloc).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/f; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
t0=$(date +%s)
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include > $L/cfg.log 2>&1
cmake --build build-gpu > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
echo "build: $(( $(date +%s)-t0 )) s"
timeout 200 ctest --test-dir build-gpu -R 'gpu\.|variants_gpu' --output-on-failure > $L/ctest.log 2>&1; echo "ctest rc=$? $(( $(date +%s)-t0 )) s"
grep -E 'tests passed|Failed|\*\*\*|Skipped' $L/ctest.log | head -20
for run in head:bracket new:bracket head:time new:time head:alone head:time new:time; do
  v=${run%%:*}; m=${run##*:}; lib=$R/build-scratch/coloc/libbaton_train_mlp.so
  [ $v = head ] && lib=$R/build-scratch/coloc-head/libbaton_train_mlp.so
  timeout 40 python3 build-scratch/probe/reqphases.py $lib $m 4 > $L/rp-$v-$m.log 2>&1
  echo "== $v $m rc=$? $(( $(date +%s)-t0 ))s"; grep -E 'mode|lc_begin|graph|synchron|lc_end|request |latency' $L/rp-$v-$m.log | grep -v -i warn
done
for v in head new; do
  lib=$R/build-scratch/coloc/libbaton_train_mlp.so; [ $v = head ] && lib=$R/build-scratch/coloc-head/libbaton_train_mlp.so
  left=$(( 585 - ($(date +%s)-t0) )); [ $left -gt 60 ] || break
  (cd bench/colocation && timeout $left python3 colocate.py --lib $lib --out $L/coloc-$v --models bert,cnn --systems alone,baton-time --loads 0.1,0.5 --rounds 2 --window 2 --deadline $((left-15)) > $L/coloc-$v.log 2>&1)
  echo "colocate $v rc=$? $(( $(date +%s)-t0 ))s"; sed -n '/==== colocation/,$p' $L/coloc-$v.log | head -16
done
cp build-scratch/probe/reqphases.py $L/
cd $OUT && tar czf f.tgz f && rm -rf f
