#!/usr/bin/env bash
# Fifteenth session: why baton.torch's best-effort process aborts at the end
# of baton-alone, and why baton-procs' training process does not finish.
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
L=$OUT/c; mkdir -p $L
which gdb > $L/gdb.txt 2>&1; echo "gdb: $(cat $L/gdb.txt)"
g++ -shared -fPIC -O1 build-scratch/terminate_trace.cpp -o /tmp/terminate_trace.so || exit 1
cmake -S . -B build-torch -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) > $L/build.log 2>&1 && cmake --build build-torch -j16 --target baton_python >> $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
export PYTHONPATH=$PWD/build-torch/python PYTHONFAULTHANDLER=1 BATON_VERBOSE=1
# Hang watcher: once no inference child is left, a training child alive for
# 25 s more gets its stacks dumped (gdb if there is one, then SIGABRT for
# Python's faulthandler).
( gone=0
  while sleep 5; do
    if pgrep -f -- "--role infer" >/dev/null; then gone=0; continue; fi
    pid=$(pgrep -f -- "--role train-pair" | head -1); [ -z "$pid" ] && { gone=0; continue; }
    gone=$((gone+5)); [ $gone -lt 25 ] && continue
    echo "=== dumping train-pair $pid" >> $L/hang.txt
    [ -s $L/gdb.txt ] && timeout 60 gdb -p $pid -batch -ex "thread apply all bt" >> $L/hang.txt 2>&1
    kill -ABRT $pid; gone=-1000
  done ) &
watcher=$!
cd bench/torch
LD_PRELOAD=/tmp/terminate_trace.so timeout 520 python3 colocate_torch.py --out $L/run --systems baton-alone,baton-procs --loads 0.5 --window 3 --train-for 3 --deadline 480 > $L/torch.log 2>&1
echo "torch rc=$? $(( $(date +%s)-t0 ))s"
kill $watcher 2>/dev/null
tail -15 $L/torch.log
for f in $L/run/*.log; do echo "== $f"; grep -v "^\[" $f | grep -v "^$" | tail -40; done
cd $OUT && tar czf c.tgz c; echo "total $(( $(date +%s)-t0 ))s"
