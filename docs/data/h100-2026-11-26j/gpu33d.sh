#!/usr/bin/env bash
# Thirty-third session, call d: where check_loads.py's latency-critical
# thread waits (it hung in calls a-c, in a torch op of its compiled
# function, with no bracket expiring). check_loads.py with BATON_TRACE=1 in
# the background; after 110 s every thread's kernel wait channel and
# syscall, gdb's or py-spy's native stacks where the machine has them, the
# compiled function's code around the line it waits on, and the trace's
# last lines.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/d; mkdir -p $L
t0=$(date +%s)
(cmake -S . -B build-torch -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF \
   -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) \
   -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DCLI11_INCLUDE_DIR=$R/.deps &&
 cmake --build build-torch --target baton_python) > $L/build-torch.log 2>&1 || { tail -20 $L/build-torch.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
export PYTHONPATH=$R/build-torch/python
which gdb py-spy eu-stack pstack > $L/tools.txt 2>&1
BATON_TRACE=1 BATON_CACHE_DIR=$L/cache python3 bench/torch/check_loads.py --out $L --requests 1 --timeout 200 > $L/loads.log 2> $L/trace.log &
sleep 110
PID=$(pgrep -f "check_loads.py --run" | head -1)
echo "pid $PID"
{
for T in /proc/$PID/task/*; do
  echo "$(basename $T) $(cat $T/comm) wchan=$(cat $T/wchan) syscall=$(cut -d' ' -f1 $T/syscall) state=$(awk '{print $3}' $T/stat)"
  cat $T/stack 2>/dev/null | head -8 | sed 's/^/    /'
done
} > $L/threads.txt 2>&1
awk '{print $2, $3, $4, $5}' $L/threads.txt | grep -v "^ *$" | sort | uniq -c | sort -rn | head -20
if command -v gdb >/dev/null; then timeout 60 gdb -batch -p $PID -ex "thread apply all bt 25" > $L/gdb.txt 2>&1; fi
if command -v py-spy >/dev/null; then timeout 60 py-spy dump --native --pid $PID > $L/pyspy.txt 2>&1; fi
F=$(ls /tmp/torchinductor_root/sl/cslp*.py 2>/dev/null | head -1)
[ -n "$F" ] && sed -n 100,160p $F > $L/compiled_fn.txt
grep -n "" $L/compiled_fn.txt | sed -n 35,50p
grep -cE "submit waits" $L/trace.log; grep -E "draining|expired|held|begin external|end external|hold" $L/trace.log | tail -15
tail -40 $L/trace.log | cut -c1-200
wait
echo "done $(( $(date +%s)-t0 ))s"
grep -E "request|PASS|FAIL" $L/loads.log | tail -3
rm -rf $L/cache
gzip -f $L/*.log
cd $OUT && tar czf d.tgz d && rm -rf d
