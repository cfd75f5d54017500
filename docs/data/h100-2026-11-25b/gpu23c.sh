#!/usr/bin/env bash
# Twenty-third session, call c: what must hold for an MPS client's SIGKILL to
# take the BE process down; GPU tests of the plain finalize for shared BE.
set -u
cd "$(dirname "$0")/.."
R=$PWD; L=$OUT/c; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
t0=$(date +%s)
cmake -S . -B /tmp/bw -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include > $L/cfg.log 2>&1
cmake --build /tmp/bw --target baton-ptx share_gpu batonctl > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
scripts/transform-tree.sh /tmp/bw/tools/baton-ptx/baton-ptx /tmp/xw test/gpu/kernels > $L/xf.log 2>&1 || { cat $L/xf.log; exit 1; }
echo "build: $(( $(date +%s)-t0 )) s"
S=/tmp/bw/test/share/share_gpu; C=/tmp/bw/tools/batonctl/batonctl; rec=/tmp/xw/record.ptx
export CUDA_MPS_PIPE_DIRECTORY=$L/pipe CUDA_MPS_LOG_DIRECTORY=$L/mpslog; mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
nvidia-cuda-mps-control -d; sleep 1
ready() { python3 - "$1" "$2" <<'PY'
import json,sys
try: d=json.load(open(sys.argv[1]))
except Exception: print(0); sys.exit()
for p in d.get("processes",[]):
    if sys.argv[2]=="paused" and p.get("name")=="be" and p.get("be_paused"): print(1); break
    if sys.argv[2]=="announced" and p.get("name")=="lc" and p.get("lc_announced",0)>=1: print(1); break
else: print(0)
PY
}
killrun() { # name be-share(yes/no) wait-for(paused/announced) [lc env]
  local reg=/bk-$$-$1 besh=(); [ $2 = no ] && besh=(--no-share)
  timeout 60 $S be $rec --registry $reg "${besh[@]}" --seconds 5 --name be --json $L/$1-be.json > $L/$1-be.log 2>&1 & local be=$!
  sleep 1.5
  env ${4:-X=1} $S lc $rec --registry $reg --seconds 30 --kernel-us 200000 --name lc > $L/$1-lc.log 2>&1 & local lc=$!
  local p=no t=$(date +%s%N)
  for _ in $(seq 200); do $C -r $reg --json > $L/$1-before.json 2>/dev/null; [ "$(ready $L/$1-before.json $3)" = 1 ] && { p=yes; break; }; sleep 0.005; done
  local w=$(( ($(date +%s%N)-t)/1000000 ))
  kill -9 $lc; wait $lc 2>/dev/null; wait $be; local rc=$?
  rm -f /dev/shm$reg
  echo "$1 be-share=$2 kill-at=$3 ${4:-} seen=$p after ${w}ms; BE rc=$rc $(grep -m1 -E 'FAIL|error' $L/$1-be.log)"
}
for i in 1 2 3; do
  killrun pause-$i yes paused
  killrun ctl-announce-$i no announced
  killrun events-pause-$i yes paused BATON_SHARE_END=events
done
echo quit | nvidia-cuda-mps-control
rm -rf $L/pipe
echo "mps part: $(( $(date +%s)-t0 )) s"
cmake --build /tmp/bw > $L/build-all.log 2>&1 || { tail -20 $L/build-all.log; }
ctest --test-dir /tmp/bw -R 'gpu\.|variants_gpu' --output-on-failure > $L/ctest.log 2>&1; tail -18 $L/ctest.log
echo "total: $(( $(date +%s)-t0 )) s"
cd $OUT && tar czf c.tgz c && rm -rf c
