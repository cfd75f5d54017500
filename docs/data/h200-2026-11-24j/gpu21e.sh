#!/usr/bin/env bash
# Twenty-first session: MPS, raw SIGKILL of an LC client mid-request, BE held after a dead peer (experiment).
set -u
cd "$(dirname "$0")/.."
L=$OUT/e; mkdir -p $L
git diff > $L/diff.txt
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$PWD/.deps > /dev/null 2>&1
cmake --build build-gpu --target baton-ptx share_gpu batonctl > $L/build.log 2>&1 || { tail $L/build.log; exit 1; }
scripts/transform-tree.sh build-gpu/tools/baton-ptx/baton-ptx build-gpu/xformed-share test/gpu/kernels > /dev/null
S=build-gpu/test/share/share_gpu; C=build-gpu/tools/batonctl/batonctl; rec=build-gpu/xformed-share/record.ptx
export CUDA_MPS_PIPE_DIRECTORY=$L/pipe CUDA_MPS_LOG_DIRECTORY=$L/mpslog; mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
nvidia-cuda-mps-control -d; sleep 1
one() { # name hold share(yes/no)
  local name=$1 hold=$2 sh=(); [ $3 = no ] && sh=(--no-share)
  local reg=/bk-$$-$name
  BATON_SHARE_DEAD_PEER_HOLD_MS=$hold timeout 60 $S be $rec --registry $reg "${sh[@]}" --seconds 6 --name be --json $L/$name-be.json > $L/$name-be.log 2>&1 & local be=$!
  sleep 1.5
  $S lc $rec --registry $reg "${sh[@]}" --seconds 30 --kernel-us 200000 --name lc > $L/$name-lc.log 2>&1 & local lc=$!
  sleep 0.7
  local t0=$(date +%s%N); kill -9 $lc; local rel=-
  if [ $3 = yes ]; then for _ in $(seq 150); do $C -r $reg --json > $L/$name-after.json 2>/dev/null; grep -q '"name": "be"[^}]*"be_paused": false' $L/$name-after.json && { rel=$(( ($(date +%s%N)-t0)/1000000 ))ms; break; }; sleep 0.02; done; fi
  wait $lc 2>/dev/null; wait $be; local rc=$?
  rm -f /dev/shm$reg
  echo "$name hold=${hold}ms share=$3 released=$rel BE rc=$rc $(grep -m1 -E 'FAIL|error' $L/$name-be.log)"
}
for i in 1 2 3; do one h0-$i 0 yes; one h500-$i 500 yes; one ctl-$i 0 no; done
echo quit | nvidia-cuda-mps-control
rm -rf $L/pipe $L/build.log
