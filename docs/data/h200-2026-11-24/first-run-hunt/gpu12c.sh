#!/usr/bin/env bash
# Which BE state keeps the GPU from a time-sliced LC peer after a pause?
set -u
cd "$(dirname "$0")/.."
export PATH=$PATH:/usr/local/cuda/bin
L=$OUT/c; mkdir -p $L
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$PWD/.deps > $L/cfg.log 2>&1
cmake --build build-gpu -j16 --target baton-ptx share_gpu > $L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
x=build-gpu/xformed-share
scripts/transform-tree.sh build-gpu/tools/baton-ptx/baton-ptx $x test/gpu/kernels > /dev/null 2>&1
rec=$x/record.ptx
sg=build-gpu/test/share/share_gpu
jget() { sed -n "s/.*\"$2\": \"\{0,1\}\([^,\"}]*\).*/\1/p" "$1" 2>/dev/null | head -1; }
rows=()
scen() { # NAME ORDER(befirst|lcfirst) ENV BE-ARGS...
  local name=$1 order=$2 envv=$3; shift 3
  local reg=/bc-$$-$name bepid= lcpid=
  if [[ $order == befirst ]]; then
    env $envv timeout 70 $sg be $rec --registry $reg --seconds 6 --name be --json $L/$name-be.json "$@" > $L/$name-be.log 2>$L/$name-be.err &
    bepid=$!; sleep 1.5
    timeout 70 $sg lc $rec --registry $reg --seconds 3 --name lc --json $L/$name-lc.json > $L/$name-lc.log 2>&1
  else
    timeout 70 $sg lc $rec --registry $reg --seconds 5 --name lc --json $L/$name-lc.json > $L/$name-lc.log 2>&1 &
    lcpid=$!; sleep 0.3
    env $envv timeout 70 $sg be $rec --registry $reg --seconds 5.5 --name be --json $L/$name-be.json "$@" > $L/$name-be.log 2>$L/$name-be.err &
    bepid=$!
    wait $lcpid
  fi
  wait $bepid
  rm -f /dev/shm$reg
  rows+=("$(printf '%-22s %6s %8s %8s %8s %10s %6s' $name "$(jget $L/$name-lc.json requests)" "$(jget $L/$name-lc.json p50_us)" "$(jget $L/$name-lc.json p99_us)" "$(jget $L/$name-lc.json max_us)" "$(jget $L/$name-be.json blocks_per_s)" "$(jget $L/$name-be.json pauses)")")
}
scen auto-trace befirst BATON_TRACE=1
scen user befirst X=1 --first-runs-on-user-stream
for r in 1 2; do
  scen private-$r befirst X=1 --private
  scen private-warm-$r befirst X=1 --private --warm
  scen auto-lcfirst-$r lcfirst X=1
  scen user-lcfirst-$r lcfirst X=1 --first-runs-on-user-stream
done
grep -m3 "first PTB" $L/auto-trace-be.err
printf '%-22s %6s %8s %8s %8s %10s %6s\n' setup reqs p50 p99 max be_blk/s pauses
printf '%s\n' "${rows[@]}"
cd $OUT && tar czf c.tgz c && rm -rf c
