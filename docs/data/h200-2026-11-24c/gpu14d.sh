#!/usr/bin/env bash
# The launch window cap (MaxLaunchesAhead = queues / 2): training alone with
# BATON_LAUNCHES_AHEAD_QUIET=32, before (old lib) and after the cap (new lib);
# then the torch.compile GPT (large) routed at 30 us and all, default window
# and 32.
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
L=$OUT/d; mkdir -p $L
cd bench/colocation
for v in old new; do
  lib=$PWD/../../build-scratch/coloc/libbaton_train_mlp.so
  [ $v = old ] && lib=$PWD/../../build-scratch/coloc/old/libbaton_train_mlp.so
  for q in 4 32; do
    BATON_LAUNCHES_AHEAD_QUIET=$q timeout 90 python3 colocate.py --lib $lib --out $L/mlp-$v-q$q --systems baton-train-alone --models bert --loads 0.1 --train-for 4 --rounds 1 > $L/mlp-$v-q$q.log 2>&1
    echo "mlp $v quiet=$q rc=$? ($(( $(date +%s)-t0 ))s): $(grep -E 'training [0-9.]+ steps/s' $L/mlp-$v-q$q.log | sed 's/.*training/training/' | cut -c1-40 | tr '\n' ';')"
  done
done
cd ../..
cmake -S . -B build-torch -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) > $L/build.log 2>&1 && cmake --build build-torch -j 16 --target baton_python >> $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
echo "build $(( $(date +%s)-t0 ))s"
export PYTHONPATH=$PWD/build-torch/python BATON_CACHE_DIR=$PWD/build-scratch/bcache
rt() { # NAME ENV...
  local n=$1; shift
  local left=$(( 580 - ($(date +%s)-t0) ))
  [ $left -lt 60 ] && { echo "$n skipped"; return; }
  env "$@" timeout $left python3 bench/torch/route_threshold.py --scale large --thresholds 30,0 --seconds 4 > $L/rt-$n.log 2>&1
  echo "$n rc=$? $(( $(date +%s)-t0 ))s: $(grep -E 'routed|not' $L/rt-$n.log | tr -s ' ' | tr '\n' ';')"
}
rt default X=1
rt quiet32 BATON_LAUNCHES_AHEAD_QUIET=32
echo "total $(( $(date +%s)-t0 ))s"
