#!/usr/bin/env bash
# A/B: PTB first run on the user's stream (default) vs on a private stream
# (BATON_EXP_PRIVATE_FIRST=1), LC p99 under time slicing through the registry.
set -u
cd "$(dirname "$0")/.."
export PATH=$PATH:/usr/local/cuda/bin
L=$OUT/a; mkdir -p $L
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$PWD/.deps > $L/cfg.log 2>&1
cmake --build build-gpu -j16 --target baton-ptx share_gpu batonctl > $L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
x=build-gpu/xformed-share
scripts/transform-tree.sh build-gpu/tools/baton-ptx/baton-ptx $x test/gpu/kernels > /dev/null 2>&1
rec=$x/record.ptx
sg=build-gpu/test/share/share_gpu
jget() { sed -n "s/.*\"$2\": \"\{0,1\}\([^,\"}]*\).*/\1/p" "$1" 2>/dev/null | head -1; }
rows=()
scen() { # NAME SETUP(alone|timeslice|baton) ENV...
  local name=$1 setup=$2; shift 2
  local reg=/bb-$$-$name share=() bepid=
  [[ $setup == baton ]] || share=(--no-share)
  if [[ $setup != alone ]]; then
    env "$@" timeout 70 $sg be $rec --registry $reg "${share[@]}" --seconds 6 --name be --json $L/$name-be.json > $L/$name-be.log 2>$L/$name-be.err &
    bepid=$!
    sleep 1.5
  fi
  env "$@" timeout 70 $sg lc $rec --registry $reg "${share[@]}" --seconds 3 --name lc --json $L/$name-lc.json > $L/$name-lc.log 2>&1
  [[ -n $bepid ]] && wait $bepid
  rm -f /dev/shm$reg
  rows+=("$(printf '%-22s %6s %8s %8s %8s %10s %6s' $name "$(jget $L/$name-lc.json requests)" "$(jget $L/$name-lc.json p50_us)" "$(jget $L/$name-lc.json p99_us)" "$(jget $L/$name-lc.json max_us)" "$(jget $L/$name-be.json blocks_per_s)" "$(jget $L/$name-be.json pauses)")")
}
scen alone alone X=1
for r in 1 2; do
  scen ts-user-$r timeslice X=1
  scen ts-private-$r timeslice BATON_EXP_PRIVATE_FIRST=1
  scen reg-user-$r baton X=1
  scen reg-private-$r baton BATON_EXP_PRIVATE_FIRST=1
done
scen trace-user baton BATON_TRACE=1
scen trace-private baton BATON_TRACE=1 BATON_EXP_PRIVATE_FIRST=1
if command -v nvidia-cuda-mps-control >/dev/null; then
  export CUDA_MPS_PIPE_DIRECTORY=$L/mps-pipe CUDA_MPS_LOG_DIRECTORY=$L/mps-log
  mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
  if nvidia-cuda-mps-control -d; then
    sleep 1
    scen mps-reg-user baton X=1
    scen mps-reg-private baton BATON_EXP_PRIVATE_FIRST=1
    echo quit | nvidia-cuda-mps-control
  fi
fi
for f in $L/trace-*-be.err; do wc -l $f; done
printf '%-22s %6s %8s %8s %8s %10s %6s\n' setup reqs p50 p99 max be_blk/s pauses
printf '%s\n' "${rows[@]}"
cd $OUT && tar czf a.tgz a && rm -rf a
