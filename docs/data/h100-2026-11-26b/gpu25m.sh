#!/usr/bin/env bash
# Twenty-fifth session, call m (H100): GPU tests on 72ba29e, then reqphases'
# time mode in a loop (stage markers on stderr, unbuffered; SIGUSR1 dumps
# every Python thread's stack on a timeout, with each thread's wchan).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/m; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
t0=$(date +%s)
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include > $L/cfg.log 2>&1
cmake --build build-gpu > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
timeout 200 ctest --test-dir build-gpu -R 'gpu\.|variants_gpu|SchedulerService|SchedulerSim' --output-on-failure > $L/ctest.log 2>&1; echo "ctest rc=$? $(( $(date +%s)-t0 )) s"
grep -E 'tests passed|Failed|\*\*\*' $L/ctest.log | head -20
LIB=$R/build-scratch/coloc/libbaton_train_mlp.so
for i in $(seq 1 30); do
  left=$(( 500 - ($(date +%s)-t0) )); [ $left -gt 45 ] || break
  python3 -u build-scratch/probe/reqphases.py $LIB time 3 > $L/rp-$i.log 2>&1 &
  pid=$!
  for s in $(seq 1 60); do sleep 0.5; kill -0 $pid 2>/dev/null || break; done
  if kill -0 $pid 2>/dev/null; then
    echo "run $i: still running after 30 s"
    for t in /proc/$pid/task/*; do echo "$(basename $t) $(cat $t/comm) wchan=$(cat $t/wchan) state=$(cut -d' ' -f3 $t/stat)"; done > $L/tasks-$i.txt
    kill -USR1 $pid; sleep 2; kill -9 $pid; wait $pid 2>/dev/null
    cat $L/tasks-$i.txt; grep -v -i warn $L/rp-$i.log | tail -60
    break
  fi
  wait $pid; echo "run $i rc=$? $(( $(date +%s)-t0 ))s: $(grep -E 'latency' $L/rp-$i.log | tr -s ' ')"
done
cp build-scratch/probe/reqphases.py $L/
cd $OUT && tar czf m.tgz m && rm -rf m
