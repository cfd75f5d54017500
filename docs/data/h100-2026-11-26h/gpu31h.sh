#!/usr/bin/env bash
# Thirty-first session, call h: after a review of the capture change.
# Kernel lookups and module loads made on a client's thread or a
# preparation thread now run relaxed (or, for a launch into a capturing
# stream, not at all); Runtime::launch refuses a capturing stream;
# baton_share_end_on_stream tells a capturing stream from other errors.
# The GPU tests (gpu.share_check has a capturing-stream case,
# gpu.preload_graphs a latency-critical run with ends seen by polling
# events), then check_graphs.py (be-manual now captures with routed
# launches in flight, checked).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/h; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
t0=$(date +%s)
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
timeout 280 ctest --test-dir build-gpu -R 'gpu\.|variants_gpu' -E 'preload_cub' --output-on-failure > $L/ctest.log 2>&1; echo "ctest rc=$? $(( $(date +%s)-t0 ))s"
grep -E "tests passed|Failed|\*\*\*|Timeout|Passed|Skipped" $L/ctest.log | head -20
cp build-gpu/Testing/Temporary/LastTest.log $L/ctest-full.log
grep -E "^(PASS|FAIL): |passed, [0-9]+ failed|capturing" $L/ctest-full.log | head -40
gzip -f $L/ctest-full.log
python=$(command -v python3)
(cmake -S . -B build-torch -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF \
   -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$python \
   -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DCLI11_INCLUDE_DIR=$R/.deps &&
 cmake --build build-torch --target baton_python) > $L/build-torch.log 2>&1 || { tail -20 $L/build-torch.log; exit 1; }
left=$(( 570 - ($(date +%s)-t0) ))
PYTHONPATH=$R/build-torch/python BATON_CACHE_DIR=$L/cache timeout $left python3 bench/torch/check_graphs.py --out $L --timeout 200 > $L/check_graphs.log 2>&1; echo "check_graphs rc=$? $(( $(date +%s)-t0 ))s"
grep -E "^(be-trees|be-manual|lc-trees) |storm_in_flight" $L/check_graphs.log | cut -c1-300
rm -rf $L/cache
gzip -f $L/check_graphs.log
cd $OUT && tar czf h.tgz h && rm -rf h
