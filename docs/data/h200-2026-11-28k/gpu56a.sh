#!/usr/bin/env bash
# Fifty-sixth session, call a (an H200): the GPU tests (the first GPU run of
# test_epochs_gpu.py, and of slice variants that load the grid with begin in
# one vector load), then the MLP step's variants before that change (old/,
# the plugin at 5d6f000) and after it (new/), one runtime, interleaved, four
# rounds; variant_overhead's new s-runs column times runs of back-to-back
# slice launches paired with runs of the original.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; D=$R/docs/data/h200-2026-11-28k; L=$OUT/a; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $L/gpu.txt
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3)"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu) > $L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
timeout 330 ctest --test-dir build-gpu -R 'gpu\.|variants_gpu|Scheduler|ClaimsOf|python' -E 'gpu\.preload|gpu\.torch' --output-on-failure -V > $L/ctest.log 2>&1; echo "ctest rc=$? $(( $(date +%s)-t0 ))s"
grep -E "tests passed|Failed|\*\*\*Timeout|Not Run" $L/ctest.log | head -12
grep -E "[0-9]+ passed, [0-9]+ failed|exactly.once.*checks|test_epochs|Ran [0-9]+ tests|^OK|FAILED \(" $L/ctest.log | head -12
gzip -f $L/ctest.log
for r in 1 2 3 4; do
  left=$(( 560 - ($(date +%s)-t0) )); [ $left -gt 40 ] || { echo "no time for round $r"; break; }
  timeout 60 build-gpu/bench/variant_overhead $D/old bench/manifests/colocation-mlp.txt > $L/old$r.txt 2>&1
  timeout 60 build-gpu/bench/variant_overhead $D/new bench/manifests/colocation-mlp.txt > $L/new$r.txt 2>&1
  echo "mlp round $r rc=$? $(( $(date +%s)-t0 ))s"
done
python3 docs/data/h100-2026-11-27g/mlp_weighted.py bench/manifests/colocation-mlp.txt $L/old*.txt $L/new*.txt | grep -E "txt|slice|s-runs|sched" | tee $L/summary.txt
for v in old new; do
  /usr/local/cuda/bin/ptxas -arch=sm_90a $D/$v/mlp/train_mlp.ptx -o $L/$v.cubin 2>/dev/null &&
    /usr/local/cuda/bin/cuobjdump -sass -fun '_ZN12_GLOBAL__N_19bias_geluEPfPKfS0_ii__baton_slice' $L/$v.cubin | head -40 > $L/$v-bias_gelu-slice.sass; rm -f $L/$v.cubin
done
for f in $L/new1.txt $L/old1.txt; do echo "== $f"; cut -c31-60,86-110 $f; done
cd $OUT && tar czf a.tgz a && rm -rf a
