#!/usr/bin/env bash
# Fifty-seventh session, call a (an H200): the variants of the fifth to
# seventh collections of PTX from elsewhere against their originals under
# guessed launches (bench/ptx_libraries/gpu_check.sh), none of which had run
# on a GPU; they include the kernels behind the fifty-sixth session's last
# fixes (16-bit block-index reads, module-scope state, %aggr_smem_size).
# The collections travel untracked in scratch57/ (w5, w6, w7).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/a; mkdir -p $L/logs
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $L/gpu.txt
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3)"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu) > $L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
rm -rf /tmp/wild; timeout $(( 570 - ($(date +%s)-t0) )) bash bench/ptx_libraries/gpu_check.sh build-gpu /tmp/wild scratch57 30 > $L/gpu_check.log 2>&1
echo "gpu_check rc=$? $(( $(date +%s)-t0 ))s"
cp /tmp/wild/manifest.txt /tmp/wild/no-guess.txt $L/ 2>/dev/null
for f in $(grep -o 'log: .*' $L/gpu_check.log | cut -d' ' -f2); do head -c 20000 $f > $L/logs/$(basename $f); done
grep -v '^passed\|^original faulted' $L/gpu_check.log | tail -40
cd $OUT && tar czf a.tgz a && rm -rf a
