#!/usr/bin/env bash
# Sixteenth session, call D: runtime_hostile with the pool topped up at
# start, then the torch baton-procs pair that hung (trace, native stacks if
# it hangs again).
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
L=$OUT/d; mkdir -p $L
gcc -O1 -g -shared -fPIC build-scratch/dump/stackdump.c -o /tmp/stackdump.so -lpthread
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$PWD/.deps > /dev/null 2>&1 && cmake --build build-gpu -j16 > $L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
(cd build-gpu && timeout 100 ctest -R 'gpu\.runtime_hostile|gpu\.exactly_once|gpu\.scheduler_check|gpu\.c_api|gpu\.share' --output-on-failure > $L/ctest.log 2>&1); echo "ctest rc=$? ($(( $(date +%s)-t0 ))s)"
grep -E "tests passed|FAIL" $L/ctest.log | head
cmake -S . -B build-torch -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) > $L/tbuild.log 2>&1 && cmake --build build-torch -j16 --target baton_python >> $L/tbuild.log 2>&1 || { tail -20 $L/tbuild.log; }
echo "torch build $(( $(date +%s)-t0 ))s"
export PYTHONPATH=$PWD/build-torch/python PYTHONFAULTHANDLER=1 BATON_TRACE=1 STACKDUMP_TRIGGER=/tmp/trig-procs LD_PRELOAD=/tmp/stackdump.so
rm -f /tmp/trig-procs
left=$(( 580 - ($(date +%s)-t0) ))
( sleep $((left-12)); touch /tmp/trig-procs ) &
cd bench/torch && timeout $left python3 colocate_torch.py --out $L/procs --systems baton-procs --loads 0.2,0.5,0.8 --window 3 --deadline $((left-10)) > $L/procs.log 2>&1; echo "procs rc=$? ($(( $(date +%s)-t0 ))s)"
unset LD_PRELOAD
sed -n '/==== torch/,$p' $L/procs.log | head -20
tail -5 $L/procs.log
for f in $L/procs/*.log; do echo "== $f: $(grep -c baton-trace $f) trace lines, $(grep -c 'native stack' $f) stacks"; grep baton-trace $f | tail -3; done
cd $OUT && tar czf d.tgz d; echo "total $(( $(date +%s)-t0 ))s"
