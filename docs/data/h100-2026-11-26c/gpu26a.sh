#!/usr/bin/env bash
# Twenty-sixth session, call a (H100): main (04cf69f, begins before ends)
# on a GPU: GPU tests, check_train (1 and 8 splits), then
# bench/colocation/request_phases.py once per mode, twice, interleaved.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/a; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
t0=$(date +%s)
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include > $L/cfg.log 2>&1
cmake --build build-gpu > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
echo "build: $(( $(date +%s)-t0 )) s"
timeout 240 ctest --test-dir build-gpu -R 'gpu\.|variants_gpu|SchedulerService' --output-on-failure > $L/ctest.log 2>&1; echo "ctest rc=$? $(( $(date +%s)-t0 )) s"
grep -E 'tests passed|Failed|\*\*\*|Skipped' $L/ctest.log | head -20
LIB=$R/build-scratch/coloc/libbaton_train_mlp.so
timeout 120 python3 bench/colocation/check_train.py $LIB > $L/check_train.log 2>&1; echo "check_train rc=$? $(( $(date +%s)-t0 )) s"
grep -E 'split\(s\), (off|time|space) \(|FAIL|failed' $L/check_train.log | cut -c1-120
cd bench/colocation
for r in 1 2; do for m in alone bracket time space; do
  left=$(( 560 - ($(date +%s)-t0) )); [ $left -gt 30 ] || break 2
  timeout 40 python3 -u request_phases.py --lib $LIB --mode $m --load 0.1 --seconds 4 > $L/rp-$r-$m.log 2>&1
  echo "rp $r $m rc=$? $(( $(date +%s)-t0 ))s"
done; done
for f in $L/rp-1-*.log; do echo "== $f"; tail -9 $f; done
cd $OUT && tar czf a.tgz a && rm -rf a
