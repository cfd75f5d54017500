#!/usr/bin/env bash
# Forty-ninth session, call b (a fresh machine, so it builds again): gpu.runtime_hostile
# three times with the reset child's launch ten times longer (call a's failure:
# its 400k blocks of 20 us finished before the pause at 2 ms); then the GPT
# step's variants against their originals (--every-variant), with first
# shares as claims (default) and covering the grid (BATON_COVERING_SHARES=1).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/b; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3)"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu) > $L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
TCFG="$CFG -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF"
(cmake -S . -B build-torch $TCFG && cmake --build build-torch --target baton_python) > $L/build-torch.log 2>&1 || { tail -20 $L/build-torch.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
for i in 1 2 3; do
  ctest --test-dir build-gpu -R 'gpu.runtime_hostile' --output-on-failure > $L/hostile-$i.log 2>&1; echo "hostile $i rc=$?"
done
grep -h "context reset\|FAIL" $L/hostile-*.log | sort | uniq -c
export PYTHONPATH=$R/build-torch/python BATON_CACHE_DIR=/tmp/bcache-b
run() {
  local tag=$1; shift
  left=$(( 585 - ($(date +%s)-t0) )); [ $left -gt 60 ] || { echo "no time for $tag"; return; }
  env "$@" timeout $left python3 bench/torch/variant_overhead.py --train gpt --scale large --every-variant > $L/vo-$tag.log 2> $L/vo-$tag.err; echo "vo $tag rc=$? $(( $(date +%s)-t0 ))s"
  grep -E 'geometric|weighted|idle' $L/vo-$tag.log | cut -c1-150
}
run claims BATON_TRACE=1
run covering BATON_TRACE=1 BATON_COVERING_SHARES=1
for t in claims covering; do
  echo "$t: $(grep -c 'covering [1-9]' $L/vo-$t.err) launches with covering shares"
done
gzip -f $L/*.err
cd $OUT && tar czf b.tgz b && rm -rf b
