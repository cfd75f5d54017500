#!/usr/bin/env bash
# Nineteenth session: paused one-wave launches resumed as originals while quiet. GPU tests, forms, training alone A/B.
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
L=$OUT/f; mkdir -p $L
git log --oneline -1 > $L/commit.txt; git diff --stat > $L/diffstat.txt
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$PWD/.deps > /dev/null 2>&1 && cmake --build build-gpu -j16 > $L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
(cd build-gpu && timeout 200 ctest -R 'gpu\.|variants_gpu' --output-on-failure > $L/ctest.log 2>&1); echo "ctest rc=$? ($(( $(date +%s)-t0 ))s)"
grep -E "tests passed|\*\*\*Failed|original instead" $L/ctest.log build-gpu/Testing/Temporary/LastTest.log | tail -6
cmake -S . -B build-torch -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) > $L/tbuild.log 2>&1 && cmake --build build-torch -j16 --target baton_python >> $L/tbuild.log 2>&1 || { tail -20 $L/tbuild.log; exit 1; }
export PYTHONPATH=$PWD/build-torch/python BATON_CACHE_DIR=/tmp/bcache-19
BATON_TRACE=1 timeout 250 python3 build-scratch/ktime.py --scale large > $L/ktime.log 2> $L/trace.log; echo "ktime rc=$? $(( $(date +%s)-t0 ))s"
sed -n '/^device time/,$p' $L/ktime.log | head -10
echo "mm_t_6 launches: $(grep -c "launch .*mm_t_6'" $L/trace.log), originals at once $(grep "launch .*mm_t_6'" $L/trace.log | grep -c 'form 0'), resumed as originals: $(grep -c '^.*original [0-9]' $L/trace.log)"
gzip $L/trace.log
for i in 1 2; do for o in 1 0; do
left=$(( 590 - ($(date +%s)-t0) ))
[ $left -gt 70 ] || break
BATON_ONE_WAVE_ORIGINALS=$o timeout $left python3 bench/torch/route_threshold.py --scale large --thresholds 100 --seconds 5 > $L/rt-o$o-$i.log 2>&1; echo "rt originals=$o $i rc=$? $(( $(date +%s)-t0 ))s"
tail -3 $L/rt-o$o-$i.log
done; done
cd $OUT && tar czf f.tgz f && rm -rf f
