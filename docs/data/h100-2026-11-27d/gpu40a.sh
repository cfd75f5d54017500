#!/usr/bin/env bash
# Fortieth session, call a (issue 5): the reserve's PTB launches now fill
# the SMs they keep (f9350d6, 9370600). baton-reserve with 66, 44 and 22
# SMs reserved against alone and baton-time at 50% load, 3 s windows, two
# rounds interleaved, the same arrivals everywhere; then the GPU tests on
# main (calls.cu's corpus lines, test_torch_real's new assertion).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/a; mkdir -p $L
D=$R/docs/data/h100-2026-11-27d
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
LIB=$R/build/bench/colocation/libbaton_train_mlp.so
cd bench/colocation
for r in 1 2; do
  for T in alone time reserve66 reserve44 reserve22; do
    case $T in
      alone) SYS=alone; SMS=66 ;;
      time) SYS=baton-time; SMS=66 ;;
      reserve*) SYS=baton-reserve; SMS=${T#reserve} ;;
    esac
    timeout 100 python3 colocate.py --lib $LIB --out $L/r$r-$T --rounds 1 --deadline 90 --window 3 --loads 0.5 --service-ms bert=0.31,cnn=0.92 --systems $SYS --lc-sms $SMS > $L/r$r-$T.log 2>&1
    echo "round $r $T rc=$? ($(( $(date +%s)-t0 ))s)"
    gzip -f $L/r$r-$T/latencies.json $L/r$r-$T/children.log
  done
done
python3 $D/summary.py $L | tee $L/summary.txt
cd $R
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3)"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu) > $L/build.log 2>&1 || { tail -20 $L/build.log; }
echo "built $(( $(date +%s)-t0 ))s"
timeout $(( 585 - ($(date +%s)-t0) )) ctest --test-dir build-gpu -R 'gpu\.|variants_gpu|Scheduler|python' -E 'preload' --output-on-failure > $L/ctest.log 2>&1; echo "ctest rc=$? $(( $(date +%s)-t0 ))s"
grep -E "tests passed|Failed|\*\*\*Timeout" $L/ctest.log | head -10
gzip -f $L/ctest.log
cd $OUT && tar czf a.tgz a && rm -rf a
