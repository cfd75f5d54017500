#!/usr/bin/env bash
# #6: where routed training's time goes (profiler gaps), and the quiet window / registry A/B.
set -u
cd "$(dirname "$0")/.."
L=$OUT/a; mkdir -p $L
t0=$(date +%s)
nvidia-smi -L > $L/gpu.txt
cmake -S . -B build-torch -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) > $L/build.log 2>&1 && cmake --build build-torch -j 16 --target baton_python >> $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
echo "build $(( $(date +%s)-t0 ))s"
export PYTHONPATH=$PWD/build-torch/python BATON_CACHE_DIR=$PWD/build-scratch/bcache
timeout 200 python3 build-scratch/gaps.py --scale large > $L/gaps-large.log 2>&1; echo "gaps rc=$? $(( $(date +%s)-t0 ))s"
grep -A9 '^==' $L/gaps-large.log
rt() { # NAME ENV...
  local n=$1; shift
  env "$@" timeout 150 python3 bench/torch/route_threshold.py --scale ${SCALE:-large} --thresholds 30,0 --seconds 4 > $L/rt-$n.log 2>&1
  echo "$n rc=$? $(( $(date +%s)-t0 ))s: $(grep -E 'routed|not' $L/rt-$n.log | tr -s ' ' | tr '\n' ';')"
}
rt default X=1
rt noshare BATON_SHARE=0
rt quiet32 BATON_LAUNCHES_AHEAD_QUIET=32
rt both BATON_SHARE=0 BATON_LAUNCHES_AHEAD_QUIET=32
cd $OUT && tar czf a.tgz a && rm -rf a; echo "total $(( $(date +%s)-t0 ))s"
