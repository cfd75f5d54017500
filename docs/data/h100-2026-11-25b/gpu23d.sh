#!/usr/bin/env bash
# Twenty-third session, call d: under MPS, does holding BE work paused for a
# while after an LC peer is found dead keep the BE process alive through a
# SIGKILL of that peer right as BE pauses? (experiment: BATON_SHARE_DEAD_PEER_HOLD_MS)
set -u
cd "$(dirname "$0")/.."
R=$PWD; L=$OUT/d; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
git diff HEAD > $L/diff.txt
t0=$(date +%s)
cmake -S . -B /tmp/bw -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include > $L/cfg.log 2>&1
cmake --build /tmp/bw --target baton-ptx share_gpu batonctl > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
scripts/transform-tree.sh /tmp/bw/tools/baton-ptx/baton-ptx /tmp/xw test/gpu/kernels > $L/xf.log 2>&1 || { cat $L/xf.log; exit 1; }
echo "build: $(( $(date +%s)-t0 )) s"
S=/tmp/bw/test/share/share_gpu; C=/tmp/bw/tools/batonctl/batonctl; rec=/tmp/xw/record.ptx
export CUDA_MPS_PIPE_DIRECTORY=$L/pipe CUDA_MPS_LOG_DIRECTORY=$L/mpslog; mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
nvidia-cuda-mps-control -d; sleep 1
state() { python3 - "$1" <<'PY'
import json,sys
try: d=json.load(open(sys.argv[1]))
except Exception: print("?"); sys.exit()
for p in d.get("processes",[]):
    if p.get("name")=="be": print("paused" if p.get("be_paused") else "running"); break
else: print("?")
PY
}
killrun() { # name hold-ms
  local reg=/bk-$$-$1
  BATON_SHARE_DEAD_PEER_HOLD_MS=$2 timeout 60 $S be $rec --registry $reg --seconds 5 --name be --json $L/$1-be.json > $L/$1-be.log 2>&1 & local be=$!
  sleep 1.5
  $S lc $rec --registry $reg --seconds 30 --kernel-us 200000 --name lc > $L/$1-lc.log 2>&1 & local lc=$!
  local p=no
  for _ in $(seq 200); do $C -r $reg --json > $L/$1-before.json 2>/dev/null; [ "$(state $L/$1-before.json)" = paused ] && { p=yes; break; }; sleep 0.005; done
  local t=$(date +%s%N); kill -9 $lc; local rel=never
  for _ in $(seq 200); do $C -r $reg --json > $L/$1-after.json 2>/dev/null; [ "$(state $L/$1-after.json)" = running ] && { rel=$(( ($(date +%s%N)-t)/1000000 ))ms; break; }; sleep 0.005; done
  wait $lc 2>/dev/null; wait $be; local rc=$?
  rm -f /dev/shm$reg
  echo "$1 hold=${2}ms paused=$p released=$rel BE rc=$rc $(grep -m1 -E 'FAIL|error' $L/$1-be.log)"
}
for i in 1 2 3 4 5; do killrun h0-$i 0; killrun h500-$i 500; done
echo quit | nvidia-cuda-mps-control
rm -rf $L/pipe
echo "total: $(( $(date +%s)-t0 )) s"
cd $OUT && tar czf d.tgz d && rm -rf d
