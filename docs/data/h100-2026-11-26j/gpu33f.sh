#!/usr/bin/env bash
# Thirty-third session, call f: the same check_loads.py against the
# package as it was before the drain (5944a73, whose load holds gave up
# after 2 s and loaded unheld), built from an export of that commit
# carried as .old5944: does the check fail without the fix?
# .old5944 was made with: mkdir .old5944 && git archive 5944a73 CMakeLists.txt
#   cmake lib include runtime python tools test/CMakeLists.txt | tar -x -C .old5944
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/f; mkdir -p $L
t0=$(date +%s)
(cmake -S .old5944 -B build-old -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF \
   -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) \
   -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DCLI11_INCLUDE_DIR=$R/.deps &&
 cmake --build build-old --target baton_python) > $L/build-old.log 2>&1 || { tail -20 $L/build-old.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
export PYTHONPATH=$R/build-old/python
BATON_CACHE_DIR=$L/cache timeout 200 python3 bench/torch/check_loads.py --out $L --timeout 170 > $L/loads.log 2>&1; echo "loads rc=$? $(( $(date +%s)-t0 ))s"
grep -E "request|PASS|FAIL|Timeout|KeyError|baton:" $L/loads.log | cut -c1-250 | tail -10
grep -A3 "most recent call first" $L/loads.log | grep -E "check_loads|triton.py|_core" | head -8
rm -rf $L/cache
gzip -f $L/*.log
cd $OUT && tar czf f.tgz f && rm -rf f
