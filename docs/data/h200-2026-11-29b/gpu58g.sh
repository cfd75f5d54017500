#!/usr/bin/env bash
# Fifty-eighth session, call g (an H200): the final tree (e043de6), after
# the review's fixes (a resumed launch keeps a run of idle originals to the
# bound; none issued past work not issued yet). The GPU tests, then
# alone_ab.py as in call e (the MLP alone by itself, scheduled, and with
# every launch the original), three rounds. Carries .deps and
# build/bench/colocation (the MLP built here with the clang plugin).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/g; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $L/gpu.txt
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3)"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu) > $L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
timeout 230 ctest --test-dir build-gpu -R 'gpu\.|variants_gpu|Scheduler|ClaimsOf|python' -E 'gpu\.preload|gpu\.torch' --output-on-failure -V > $L/ctest.log 2>&1; echo "ctest rc=$? $(( $(date +%s)-t0 ))s"
grep -E "tests passed|Failed|\*\*\*Timeout|Not Run" $L/ctest.log | head -12
grep -E "[0-9]+ passed, [0-9]+ failed|Ran [0-9]+ tests|^OK|FAILED \(|untimed" $L/ctest.log | head -14
gzip -f $L/ctest.log
timeout $(( 570 - ($(date +%s)-t0) )) python3 docs/data/h200-2026-11-29b/alone_ab.py \
  $R/build/bench/colocation/libbaton_train_mlp.so 3 $L baton all-originals 2>&1 | tee $L/alone_ab.log
gzip -f $L/trace-*.txt
cd $OUT && tar czf g.tgz g && rm -rf g
