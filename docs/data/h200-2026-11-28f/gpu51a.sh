#!/usr/bin/env bash
# Fifty-first session, call a (an H200): the GPU tests on main (928d160),
# the interposer's scripts (gpu.preload*) for the first time with the
# variant-only settings (0 scheduled launches as originals required); then
# check_training.py's default models and check_ops.py with every routed
# launch a variant (first GPU run of those settings for them).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/a; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $L/gpu.txt
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3)"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu) > $L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
timeout 280 ctest --test-dir build-gpu -R 'gpu\.|variants_gpu|Scheduler|ClaimsOf|python' --output-on-failure -V > $L/ctest.log 2>&1; echo "ctest rc=$? $(( $(date +%s)-t0 ))s"
grep -E "tests passed|Failed|\*\*\*Timeout|Not Run" $L/ctest.log | head -12
grep -E "[0-9]+ passed, [0-9]+ failed|exactly.once.*checks|ran as the originals" $L/ctest.log | sort | uniq -c | head -20
grep -E "gpu\.preload.*(Passed|Failed|Skipped)" $L/ctest.log
gzip -f $L/ctest.log
(cmake -S . -B build-torch $CFG -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF && cmake --build build-torch --target baton_python) > $L/tbuild.log 2>&1 || { tail -20 $L/tbuild.log; exit 1; }
export PYTHONPATH=$R/build-torch/python BATON_CACHE_DIR=/tmp/bcache-51
left=$(( 585 - ($(date +%s)-t0) ))
timeout $(( left > 230 ? 230 : left )) python3 bench/torch/check_training.py --out $L > $L/check.log 2>&1; echo "check rc=$? $(( $(date +%s)-t0 ))s"
grep -E ": (PASS|FAIL|NOT)|originals" $L/check.log | cut -c1-180 | tail -14
left=$(( 590 - ($(date +%s)-t0) ))
[ $left -gt 40 ] && { timeout $left python3 bench/torch/check_ops.py --out $L > $L/ops.log 2>&1; echo "ops rc=$? $(( $(date +%s)-t0 ))s"; }
grep -cE ": PASS" $L/ops.log; grep -E ": (FAIL|SKIP|NOT)|no Triton|originals" $L/ops.log | cut -c1-170 | head -8
gzip -f $L/*.log
cd $OUT && tar czf a.tgz a && rm -rf a
