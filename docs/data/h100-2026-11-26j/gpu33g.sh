#!/usr/bin/env bash
# Thirty-third session, call g: check_loads.py now keeps each bracket open
# 300 ms before compiling, past the training thread's host gate (100 ms),
# so that the training's launches wait paused during every load (in call f
# the compiles were cache hits of about 100 ms and no launch was paused).
# Against the package before the drain (5944a73), then main.
# .old5944 was made with: mkdir .old5944 && git archive 5944a73 CMakeLists.txt
#   cmake lib include runtime python tools test/CMakeLists.txt | tar -x -C .old5944
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/g; mkdir -p $L
t0=$(date +%s)
for B in build-old:.old5944 build-torch:.; do
  (cmake -S ${B#*:} -B ${B%%:*} -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF \
     -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) \
     -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DCLI11_INCLUDE_DIR=$R/.deps &&
   cmake --build ${B%%:*} --target baton_python) > $L/build-${B%%:*}.log 2>&1 || { tail -20 $L/build-${B%%:*}.log; exit 1; }
done
echo "built $(( $(date +%s)-t0 ))s"
for B in build-old build-torch; do
  PYTHONPATH=$R/$B/python BATON_CACHE_DIR=$L/cache timeout 150 python3 bench/torch/check_loads.py --out $L/$B --timeout 120 > $L/loads-$B.log 2>&1; echo "$B: loads rc=$? $(( $(date +%s)-t0 ))s"
  grep -E "request|PASS|FAIL|Timeout|KeyError" $L/loads-$B.log | cut -c1-200 | tail -6
  grep -o '"scheduler": {[^}]*}' $L/loads-$B.log | head -1
  grep -A2 "most recent call first" $L/loads-$B.log | grep -E "check_loads|triton.py|_core" | head -6
done
rm -rf $L/cache
gzip -f $L/*.log
cd $OUT && tar czf g.tgz g && rm -rf g
