#!/usr/bin/env bash
# Thirty-fourth session, call d: the launch interposer now makes the module
# loads it sees (cuModuleLoad*, cuLibraryLoad*) with best-effort work held
# back. gpu.preload (the interposer's GPU test), then the demo's training
# program, preloaded best-effort, with a thread that loads a cubin through
# the CUDA runtime every 20 ms (train --load-module), while a
# latency-critical peer process holds one bracket open for 4 s: with the
# interposer as it was (.oldpre: `git archive f0e63ca` of the sources, before the hooks) and as it
# is now.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/d; mkdir -p $L
t0=$(date +%s)
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3)"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
(cmake -S .oldpre -B build-oldpre $CFG -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DBATON_ENABLE_PYTHON=OFF && cmake --build build-oldpre --target BatonPreload) > $L/build-old.log 2>&1 || { tail -20 $L/build-old.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
timeout 200 ctest --test-dir build-gpu -R 'gpu\.preload$' --output-on-failure > $L/ctest.log 2>&1; echo "ctest rc=$? $(( $(date +%s)-t0 ))s"
grep -E "tests passed|Failed|PASS|FAIL" $L/ctest.log | head -8
W=/tmp/loadcheck; rm -rf $W; mkdir -p $W; cd $W
nvcc=/usr/local/cuda/bin/nvcc
$nvcc -O3 -shared -Xcompiler -fPIC -gencode arch=compute_90,code=compute_90 -gencode arch=compute_90,code=sm_90 $R/bench/preload/trainkernels.cu -o libtrainkernels.so
$nvcc -O3 $R/bench/preload/train.cpp -L. -ltrainkernels -Xlinker -rpath -Xlinker $PWD -o train
$R/build-gpu/tools/baton-recompile/baton-recompile libtrainkernels.so --cache-dir cache -q
printf '__global__ void tiny(float *x) { x[threadIdx.x] += 1.f; }\n' > tiny.cu
$nvcc -cubin -arch=sm_90 tiny.cu -o tiny.cubin
PEER='
import sys, time
from baton import _core
_core.router_start()
time.sleep(3)
b = _core.lc_begin(0)
print("peer: bracket open", flush=True)
time.sleep(4)
_core.lc_end(b)
print("peer: bracket closed", flush=True)
'
size=(--batch 1024 --inputs 512 --hidden 1024 --layers 3 --classes 100 --warmup 2)
for lib in old new; do
  pre=$R/build-gpu/lib/Preload/libbaton_preload.so
  [ $lib = old ] && pre=$R/build-oldpre/lib/Preload/libbaton_preload.so
  export BATON_SHARE_REGISTRY=/baton-load-$lib-$$ BATON_SHARE_LEASE_MS=20000
  PYTHONPATH=$R/build-gpu/python timeout 60 python3 -c "$PEER" > $L/peer-$lib.log 2>&1 &
  peer=$!
  s=$(date +%s)
  timeout 45 env LD_PRELOAD=$pre BATON_SCHEDULE=best-effort BATON_VERBOSE=1 BATON_CACHE_DIR=$W/cache \
    ./train --seconds 10 --load-module tiny.cubin "${size[@]}" > $L/train-$lib.log 2>&1
  echo "$lib: train rc=$? after $(( $(date +%s)-s ))s: $(grep -E 'module loads|steps in' $L/train-$lib.log | tr '\n' ';')"
  grep -E "baton-preload: [0-9]+ (launches|module)" $L/train-$lib.log
  wait $peer; cat $L/peer-$lib.log | tr '\n' ';'; echo
  rm -f /dev/shm/baton-load-$lib-$$
done
cd $R
gzip -f $L/*.log
cd $OUT && tar czf d.tgz d && rm -rf d
