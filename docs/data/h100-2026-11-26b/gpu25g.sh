#!/usr/bin/env bash
# Twenty-fifth session, call g (H100): does reqphases' "time" mode hang with
# brackets posted to the scheduler's thread (one of two runs of call f did)?
# Repeated runs with Python's fault handler; on a timeout, the Python stacks
# (SIGABRT) and, where gdb exists, every thread's native stack.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/g; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
echo "gdb: $(command -v gdb || echo none)"
t0=$(date +%s)
i=0
for v in new new head new new head new new; do
  i=$((i+1)); lib=$R/build-scratch/coloc/libbaton_train_mlp.so
  [ $v = head ] && lib=$R/build-scratch/coloc-head/libbaton_train_mlp.so
  python3 -X faulthandler build-scratch/probe/reqphases.py $lib time 4 > $L/rp-$i-$v.log 2>&1 &
  pid=$!
  for s in $(seq 1 60); do sleep 0.5; kill -0 $pid 2>/dev/null || break; done
  if kill -0 $pid 2>/dev/null; then
    echo "run $i $v: still running after 30 s"
    command -v gdb > /dev/null && timeout 60 gdb -p $pid -batch -ex 'thread apply all bt 12' > $L/gdb-$i.log 2>&1
    kill -ABRT $pid; sleep 2; kill -9 $pid 2>/dev/null
  fi
  wait $pid; echo "run $i $v rc=$? $(( $(date +%s)-t0 ))s: $(grep -E 'latency|lc_end' $L/rp-$i-$v.log | tr -s ' ' | tr '\n' ';')"
done
for f in $L/rp-*.log; do grep -q 'latency' $f || { echo "== $f"; grep -v -i warn $f | tail -40; }; done
for f in $L/gdb-*.log; do [ -f $f ] && { echo "== $f"; grep -E '^#|^Thread' $f | grep -v 'libpython\|_PyEval\|PyObject' | head -80; }; done
cd $OUT && tar czf g.tgz g && rm -rf g
