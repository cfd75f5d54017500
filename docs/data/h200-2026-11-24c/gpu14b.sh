#!/usr/bin/env bash
# Fourteenth session: the vacate storm's numbers, then the C++ colocation
# (bert + cnn, graph requests) with baton-time, baton-space (vacating SMs)
# and baton-reserve (SMs kept vacated while inference is about).
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
L=$OUT/b; mkdir -p $L
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$PWD/.deps > /dev/null 2>&1 && cmake --build build-gpu -j16 --target exactly_once baton-ptx > $L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
build-gpu/tools/baton-ptx/baton-ptx test/gpu/kernels/record.ptx -o build-gpu/record.ptx 2>/dev/null
timeout 60 build-gpu/test/gpu/exactly_once build-gpu/record.ptx > $L/exactly_once.log 2>&1; echo "exactly_once rc=$?"
grep -E "vacate|passed" $L/exactly_once.log
lib=$PWD/build-scratch/coloc/libbaton_train_mlp.so
cd bench/colocation
timeout 330 python3 colocate.py --lib $lib --out $L/coloc66 --loads 0.3,0.5,0.7 --systems alone,baton-train-alone,baton-time,baton-space,baton-reserve --rounds 2 --deadline 300 > $L/coloc66.log 2>&1
echo "== colocation lc-sms 66 rc=$? ($(( $(date +%s)-t0 ))s)"
sed -n '/^system/,$p' $L/coloc66.log | cut -c1-200 | head -40
left=$(( 560 - ($(date +%s)-t0) ))
if [ $left -gt 120 ]; then
  timeout $left python3 colocate.py --lib $lib --out $L/coloc33 --loads 0.5 --lc-sms 33 --systems alone,baton-space,baton-reserve --rounds 2 --deadline $((left-20)) > $L/coloc33.log 2>&1
  echo "== colocation lc-sms 33 rc=$? ($(( $(date +%s)-t0 ))s)"
  sed -n '/^system/,$p' $L/coloc33.log | cut -c1-200 | head -20
fi
echo "total $(( $(date +%s)-t0 ))s"
