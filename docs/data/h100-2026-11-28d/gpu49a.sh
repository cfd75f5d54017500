#!/usr/bin/env bash
# Forty-ninth session, call a: the GPU tests on main (694e9a3), whose
# covering first shares (exactly_once's covering case, variants_gpu's fifth
# mode) had not run on a GPU. Builds the torch binding too, for call b on
# the same machine.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/a; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3)"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu) > $L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
timeout $(( 500 - ($(date +%s)-t0) )) ctest --test-dir build-gpu -R 'gpu\.|variants_gpu|Scheduler|python' -E 'preload' --output-on-failure > $L/ctest.log 2>&1; echo "ctest rc=$? $(( $(date +%s)-t0 ))s"
grep -E "tests passed|Failed|\*\*\*Timeout" $L/ctest.log | head -12
grep -E "exactly_once|variants_gpu|covering" $L/ctest.log | head -8
gzip -f $L/ctest.log
TCFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include"
(cmake -S . -B build-torch $TCFG && cmake --build build-torch --target baton_python) > $L/build-torch.log 2>&1 || tail -20 $L/build-torch.log
echo "torch built $(( $(date +%s)-t0 ))s"
cd $OUT && tar czf a.tgz a && rm -rf a
