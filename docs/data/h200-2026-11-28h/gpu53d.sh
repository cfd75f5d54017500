#!/usr/bin/env bash
# Fifty-third session, call d (an H200): the bypass gate in issue 6's
# torch pair: CNN training (bench size) next to the compiled BERT-style
# encoder at 50% load, Baton in one process, with the gate (default) and
# without it (BATON_BYPASS_GATE=0); then gpu.torch_training, whose
# preempted phase now runs with the gate on, in the time left.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/d; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $L/gpu.txt
git log -1 --format='%h %s' | cut -c1-80 > $L/commit.txt
export BATON_CMAKE_ARGS="-DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include"
export PYTHONFAULTHANDLER=1
for gate in on off; do
  [ $gate = off ] && export BATON_BYPASS_GATE=0
  OUT=$L/$gate timeout 260 bench/torch/run.sh bench --train cnn --systems settings,alone,baton \
    --loads 0.5 --window 4 --deadline 200 > $L/run-$gate.log 2>&1; echo "gate $gate rc=$? $(( $(date +%s)-t0 ))s"
  sed -n '/==== torch colocation/,$p' $L/run-$gate.log | grep -E "alone|baton" | head -8
done
unset BATON_BYPASS_GATE
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3)"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu) > $L/build.log 2>&1 || { tail -30 $L/build.log; }
left=$(( 570 - ($(date +%s)-t0) ))
timeout $left ctest --test-dir build-gpu -R 'gpu\.torch_training' --output-on-failure -V > $L/training.log 2>&1; echo "training rc=$? $(( $(date +%s)-t0 ))s"
grep -E "tests passed|PASS|FAIL|preempted:|NOT RUN" $L/training.log | tail -14 | cut -c1-300
gzip -f $L/*/bench/*.log 2>/dev/null
cd $OUT && tar czf d.tgz d && rm -rf d
