#!/usr/bin/env bash
# Fifty-eighth session, call f (an H200): the session's final tree. The GPU
# tests, then issue 5's benchmark for training alone under Baton and
# baton-time at 10% and 50% load (colocate.py, three rounds of 2 s
# windows, the fifty-first session's service times). Carries .deps and
# build/bench/colocation (the MLP built here with the clang plugin).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/f; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $L/gpu.txt
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3)"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu) > $L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
timeout 280 ctest --test-dir build-gpu -R 'gpu\.|variants_gpu|Scheduler|ClaimsOf|python' -E 'gpu\.preload|gpu\.torch' --output-on-failure -V > $L/ctest.log 2>&1; echo "ctest rc=$? $(( $(date +%s)-t0 ))s"
grep -E "tests passed|Failed|\*\*\*Timeout|Not Run" $L/ctest.log | head -12
grep -E "[0-9]+ passed, [0-9]+ failed|Ran [0-9]+ tests|^OK|FAILED \(" $L/ctest.log | head -14
gzip -f $L/ctest.log
cd bench/colocation
timeout $(( 580 - ($(date +%s)-t0) )) python3 colocate.py --lib $R/build/bench/colocation/libbaton_train_mlp.so --out $L/coloc --systems alone,baton-train-alone,baton-time --loads 0.1,0.5 --window 2 --rounds 3 --service-ms bert=0.32,cnn=0.91 --deadline $(( 560 - ($(date +%s)-t0) )) > $L/colocation.log 2>&1
echo "colocate rc=$? ($(( $(date +%s)-t0 ))s)"
gzip -f $L/coloc/latencies.json $L/coloc/children.log 2>/dev/null
tail -20 $L/colocation.log
cd $OUT && tar czf f.tgz f && rm -rf f
