#!/usr/bin/env bash
# Forty-third session, call h: call g's one FAILED kernel (llm.c's
# softmax_forward_kernel2) again, its source copy mended: the copy read
# shared[0] before the barrier that follows the max reduction (upstream
# reads it after), a race between warps that the PTB worker's timing shows.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/h; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3)"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
for r in 1 2 3; do
  rm -rf /tmp/recheck; bash bench/ptx_libraries/gpu_check.sh build-gpu /tmp/recheck wild-cu/recheck 30 > $L/gpu_check$r.log 2>&1
  echo "round $r: $(grep -E '^(passed|FAILED)' $L/gpu_check$r.log | tr '\n' ' ')"
done
tail -8 $L/gpu_check1.log
cd $OUT && tar czf h.tgz h && rm -rf h
