#!/usr/bin/env bash
# Fifteenth session: baton-procs' training process that does not finish
# (Python stacks once the inference process is gone), then baton-alone
# repeated for the abort at its end (native backtrace at std::terminate).
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
L=$OUT/d; mkdir -p $L
g++ -shared -fPIC -O1 build-scratch/terminate_trace.cpp -o /tmp/terminate_trace.so || exit 1
cmake -S . -B build-torch -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) > $L/build.log 2>&1 && cmake --build build-torch -j16 --target baton_python >> $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
export PYTHONPATH=$PWD/build-torch/python PYTHONFAULTHANDLER=1
# Hang watcher: after an inference child has come and gone, a training
# child still alive 20 s later gets SIGABRT (Python's faulthandler dumps).
( seen=0 gone=0
  while sleep 2; do
    if pgrep -f -- "--role infer" >/dev/null; then seen=1; gone=0; continue; fi
    [ $seen = 1 ] || continue
    pid=$(pgrep -f -- "--role train-pair" | head -1); [ -z "$pid" ] && continue
    gone=$((gone+2)); [ $gone -lt 20 ] && continue
    echo "=== dumping train-pair $pid after $gone s" >> $L/hang.txt
    cat /proc/$pid/status | grep -E "State|Threads" >> $L/hang.txt
    for t in /proc/$pid/task/*; do echo "$(cat $t/comm) $(cat $t/wchan 2>/dev/null) $(awk '{print $3}' $t/stat)"; done >> $L/hang.txt
    kill -ABRT $pid; seen=0; gone=0
  done ) &
watcher=$!
cd bench/torch
LD_PRELOAD=/tmp/terminate_trace.so timeout 330 python3 colocate_torch.py --out $L/procs --systems baton-procs --loads 0.5 --window 3 --train-for 3 --deadline 300 > $L/procs.log 2>&1
echo "procs rc=$? $(( $(date +%s)-t0 ))s"
kill $watcher 2>/dev/null
for i in 1 2 3; do
  left=$(( 570 - ($(date +%s)-t0) )); [ $left -lt 70 ] && break
  LD_PRELOAD=/tmp/terminate_trace.so timeout $left python3 colocate_torch.py --out $L/alone$i --systems baton-alone --train-for 3 --deadline $((left-10)) > $L/alone$i.log 2>&1
  echo "alone$i rc=$? $(( $(date +%s)-t0 ))s"; grep -h -A30 "std::terminate\|terminate called" $L/alone$i/*.log | head -40
done
sed -n '/==== torch/,$p' $L/procs.log | head; cat $L/hang.txt 2>/dev/null | head -40
for f in $L/procs/*.log; do echo "== $f"; grep -v "triton_mm\|AUTOTUNE\|strides\|dtypes\|Autotune\|num_choices\|select_algorithm\|^  File \"/usr/lib/python3.12/threading.py\"" $f | grep -v "^$" | tail -60; done
cd $OUT && tar czf d.tgz d; echo "total $(( $(date +%s)-t0 ))s"
