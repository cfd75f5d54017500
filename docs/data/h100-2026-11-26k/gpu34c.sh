#!/usr/bin/env bash
# Thirty-fourth session, call c: the parts of `bench/torch/run.sh check`
# that calls a and b did not run, on main: the package's tests (CPU and
# GPU), check_training.py (six models, bitwise) and check_ops.py; then the
# large GPT alone, routed against not routed, twice (issue 6's figure on
# main as it is now).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/c; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
t0=$(date +%s)
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3) -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF"
(cmake -S . -B build-torch $CFG && cmake --build build-torch --target baton_python) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
export PYTHONPATH=$R/build-torch/python BATON_CACHE_DIR=/tmp/bcache-34
timeout 120 python3 -m unittest discover -s python/tests -t python/tests > $L/unit.log 2>&1; echo "unit rc=$? $(( $(date +%s)-t0 ))s"
grep -E "^Ran|^OK|FAILED|gate_lease.* \.\.\. " $L/unit.log | cut -c1-160
timeout 230 python3 bench/torch/check_training.py --out $L > $L/check.log 2>&1; echo "check rc=$? $(( $(date +%s)-t0 ))s"
grep -E ": (PASS|FAIL)" $L/check.log | cut -c1-150 | tail -8
timeout 150 python3 bench/torch/check_ops.py --out $L > $L/ops.log 2>&1; echo "ops rc=$? $(( $(date +%s)-t0 ))s"
grep -cE ": PASS" $L/ops.log; grep -E ": (FAIL|SKIP)|no Triton" $L/ops.log | cut -c1-150 | head -5
for i in 1 2; do
  left=$(( 585 - ($(date +%s)-t0) )); [ $left -gt 60 ] || break
  timeout $left python3 bench/torch/route_threshold.py --train gpt --scale large --thresholds 100 --seconds 5 > $L/rt-$i.log 2>&1
  echo "rt $i rc=$? $(( $(date +%s)-t0 ))s: $(grep -E 'routed|again' $L/rt-$i.log | tr -s ' ' | tr '\n' ';')"
done
gzip -f $L/*.log
cd $OUT && tar czf c.tgz c && rm -rf c
