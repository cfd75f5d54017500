#!/usr/bin/env bash
# Thirtieth session, call l: after the last read of the change (smoke-run.py
# names its buffer kinds once; the preload scripts share all_scheduled in
# test/Preload/checks.sh): the smoke run of both manifests and the two
# preload GPU tests.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/l; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
for m in manifest triton-manifest; do
  timeout 200 python3 test/corpus/smoke-run.py test/corpus/$m.txt > $L/smoke-$m.log 2>&1; echo "smoke $m rc=$?: $(tail -1 $L/smoke-$m.log)"
done
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
timeout 300 ctest --test-dir build-gpu -R 'gpu\.preload' -V > $L/ctest.log 2>&1; echo "ctest rc=$?"
grep -E "^[12]: (PASS|FAIL)|most pauses|^[12]: [0-9]+ passed|tests passed" $L/ctest.log
cd $OUT && tar czf l.tgz l && rm -rf l
