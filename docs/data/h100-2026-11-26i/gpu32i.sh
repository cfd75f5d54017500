#!/usr/bin/env bash
# Thirty-second session, call i: call h's check_ops.py (registry on) hung in
# the "norms" case's preempted runs, with two baton.triton preparation
# threads inside bind_image (a cuModuleLoadDataEx) and the main thread in
# _core.synchronize(). (1) module_probe: does cuModuleLoadData wait for a
# stream blocked in cuStreamWaitValue32, as a paused launch leaves it, and
# does the releasing write then wait for the load? (2) the norms case
# alone, five processes, registry on. (Run twice: the first time, on a
# fresh machine, the probe hung in its own runtime launch and build-torch
# was missing; logs of the second.)
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/i; mkdir -p $L/cubins
t0=$(date +%s)
nvcc -O2 -arch=sm_90 bench/launch_chain_probe/module_probe.cu -lcuda -o $L/module_probe 2>&1 | tail -3
n=0
for p in test/corpus/*/*.ptx; do
  case $p in *clang-plugin*) continue ;; esac
  /usr/local/cuda/bin/ptxas -arch=sm_90a "$p" -o $L/cubins/$n.cubin 2>/dev/null && n=$((n+1))
done
echo "cubins: $n ($(du -sh $L/cubins | cut -f1))"
for mode in EAGER LAZY; do
  CUDA_MODULE_LOADING=$mode CUDA_DEVICE_MAX_CONNECTIONS=32 timeout 60 $L/module_probe 4 5 $L/cubins/*.cubin > $L/probe-$mode.log 2>&1; echo "probe $mode rc=$?"
  grep -vE "^  load" $L/probe-$mode.log; grep -c "^  load" $L/probe-$mode.log
done
rm -rf $L/cubins $L/module_probe
[ -d build-torch ] || (cmake -S . -B build-torch -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF \
   -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) \
   -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DCLI11_INCLUDE_DIR=$R/.deps &&
 cmake --build build-torch --target baton_python) > $L/build-torch.log 2>&1
export PYTHONPATH=$R/build-torch/python
for i in 1 2 3 4 5; do
  [ $(( $(date +%s)-t0 )) -gt 380 ] && break
  BATON_CACHE_DIR=$L/cache$i timeout -s ABRT 100 python3 -X faulthandler bench/torch/check_ops.py --cases norms,softmax,rms-norm --out $L --case-timeout 45 > $L/norms$i.log 2>&1; echo "norms run $i rc=$? $(( $(date +%s)-t0 ))s"
  grep -E "^(norms|softmax|rms-norm): |Timeout|bind_image|line 353" $L/norms$i.log | cut -c1-160 | head -6
  rm -rf $L/cache$i
done
gzip -f $L/*.log
cd $OUT && tar czf i.tgz i && rm -rf i
