#!/usr/bin/env bash
# Twelfth session: private first runs next to LC peers. GPU tests, then the
# share A/B (auto = private first runs while LC peers are registered, vs
# --first-runs-on-user-stream), time-sliced and under MPS.
set -u
cd "$(dirname "$0")/.."
export PATH=$PATH:/usr/local/cuda/bin
t0=$(date +%s)
L=$OUT/e; mkdir -p $L
nvidia-smi -L > $L/gpu.txt
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$PWD/.deps > $L/cfg.log 2>&1 && cmake --build build-gpu -j16 > $L/build.log 2>&1 || { tail -30 $L/cfg.log $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
timeout 260 ctest --test-dir build-gpu -R 'gpu\.|variants_gpu' --output-on-failure > $L/ctest-gpu.log 2>&1
grep -E "tests passed|tests failed|\*\*\*Failed|Timeout" $L/ctest-gpu.log | tail -8
grep -E "private 1st" -r build-gpu/Testing/Temporary/LastTest.log | head -2
echo "ctest $(( $(date +%s)-t0 ))s"
x=build-gpu/xformed-share
scripts/transform-tree.sh build-gpu/tools/baton-ptx/baton-ptx $x test/gpu/kernels > /dev/null 2>&1
rec=$x/record.ptx
sg=build-gpu/test/share/share_gpu
jget() { sed -n "s/.*\"$2\": \"\{0,1\}\([^,\"}]*\).*/\1/p" "$1" 2>/dev/null | head -1; }
rows=()
scen() { # NAME SETUP(alone|timeslice|baton) BE-ARGS...
  local name=$1 setup=$2; shift 2
  local reg=/bb-$$-$name share=() bepid=
  [[ $setup == baton ]] || share=(--no-share)
  if [[ $setup != alone ]]; then
    timeout 70 $sg be $rec --registry $reg "${share[@]}" --seconds 6 --name be --json $L/$name-be.json "$@" > $L/$name-be.log 2>&1 &
    bepid=$!
    sleep 1.5
  fi
  timeout 70 $sg lc $rec --registry $reg "${share[@]}" --seconds 3 --name lc --json $L/$name-lc.json > $L/$name-lc.log 2>&1
  [[ -n $bepid ]] && wait $bepid
  rm -f /dev/shm$reg
  rows+=("$(printf '%-22s %6s %8s %8s %8s %10s %6s' $name "$(jget $L/$name-lc.json requests)" "$(jget $L/$name-lc.json p50_us)" "$(jget $L/$name-lc.json p99_us)" "$(jget $L/$name-lc.json max_us)" "$(jget $L/$name-be.json blocks_per_s)" "$(jget $L/$name-be.json pauses)")")
}
scen alone alone
scen timeslice timeslice
for r in 1 2; do scen reg-private-$r baton; done
scen reg-user baton --first-runs-on-user-stream
if command -v nvidia-cuda-mps-control >/dev/null; then
  export CUDA_MPS_PIPE_DIRECTORY=$L/mps-pipe CUDA_MPS_LOG_DIRECTORY=$L/mps-log
  mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
  if nvidia-cuda-mps-control -d; then
    sleep 1
    scen mps-alone alone
    scen mps-reg-private baton
    scen mps-reg-user baton --first-runs-on-user-stream
    echo quit | nvidia-cuda-mps-control
  fi
  unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
fi
echo "share $(( $(date +%s)-t0 ))s"
rm -rf $L/mps-pipe
STEPS=150 REPS=3 PAIR_SECONDS=10 OUT=$L timeout $(( 585 - ($(date +%s)-t0) )) bench/preload/run.sh > $L/preload-run.log 2>&1
tail -22 $L/preload-run.log
printf '%-22s %6s %8s %8s %8s %10s %6s\n' setup reqs p50 p99 max be_blk/s pauses
printf '%s\n' "${rows[@]}"
rm -rf $L/mps-pipe
cd $OUT && tar czf e.tgz e && rm -rf e
echo "total $(( $(date +%s)-t0 ))s"
