#!/usr/bin/env bash
# Fifty-sixth session, call b (an H200): the Python tests again (forget() of
# a kernel bound without variants threw), then where a slice's time over the
# original goes: the MLP step's slices with the task read as emitted (new/),
# through the non-coherent path (nc/), kept in L1 (evl/,
# ld.global.L1::evict_last), and not read at all (floor/: constants right
# only for a whole 1-D grid, so its gemm_strided rows mean nothing);
# task_loads.py made the three from new/ (not committed; remake them with
#   for v in nc:ld.global.nc evl:ld.global.L1::evict_last floor:floor; do
#     mkdir -p ${v%%:*}/mlp && python3 task_loads.py new/mlp/train_mlp.ptx \
#       ${v%%:*}/mlp/train_mlp.ptx ${v#*:}; done
# in this directory). Four interleaved rounds.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; D=$R/docs/data/h200-2026-11-28k; L=$OUT/b; mkdir -p $L
t0=$(date +%s)
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3)"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu) > $L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
timeout 200 ctest --test-dir build-gpu -R '^python$' --output-on-failure -V > $L/ctest.log 2>&1; echo "ctest rc=$? $(( $(date +%s)-t0 ))s"
grep -E "tests passed|Ran [0-9]+ tests|^[0-9]+: (OK|FAILED)|ERROR:|FAIL:" $L/ctest.log | head -12
gzip -f $L/ctest.log
for r in 1 2 3 4; do
  for v in new nc evl floor; do
    timeout 60 build-gpu/bench/variant_overhead $D/$v bench/manifests/colocation-mlp.txt > $L/$v$r.txt 2>&1
  done
  echo "round $r $(( $(date +%s)-t0 ))s"
done
for v in new nc evl floor; do
  echo "== $v"
  for r in 1 2 3 4; do
    awk '/^mlp\//{printf "%s %s ", substr($2,20,10), $6}' $L/$v$r.txt; echo
  done
done | tee $L/summary.txt
cd $OUT && tar czf b.tgz b && rm -rf b
