#!/usr/bin/env bash
# Seventeenth session: the cross-process gate test, then the torch loss check (drain-free variants).
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
L=$OUT/f; mkdir -p $L
git log --oneline -1 > $L/commit.txt
cmake -S . -B build-torch -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) > $L/tbuild.log 2>&1 && cmake --build build-torch -j16 --target baton_python >> $L/tbuild.log 2>&1 || { tail -20 $L/tbuild.log; exit 1; }
(cd python/tests && PYTHONPATH=$PWD/../../build-torch/python timeout 60 python3 -m unittest -v test_router_gpu > $L/gate-test.log 2>&1); echo "gate test rc=$?"; tail -8 $L/gate-test.log
left=$(( 580 - ($(date +%s)-t0) ))
OUT=$L/torch timeout $left bench/torch/run.sh check > $L/torch-check.log 2>&1; echo "torch check rc=$? ($(( $(date +%s)-t0 ))s)"
tail -22 $L/torch-check.log
cd $OUT && tar czf f.tgz f && rm -rf f
