#!/usr/bin/env bash
# Twenty-third session, call a: which commit lost the registry's effect under
# time slicing (share_gpu LC p99 313-333 us at d98eb97, 1,948 us at 408efcf)?
# Then, under MPS: does a SIGKILL of the LC client at its first request kill
# the BE process only when it lands right as BE pauses?
set -u
cd "$(dirname "$0")/.."
R=$PWD; L=$OUT/a; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
commits="d98eb97 6db5a2f cbee544 e9e2c4e d209464 0e1cd52 HEAD"
build_one() {
  local c=$1 src=/tmp/src-$1
  if [ $c = HEAD ]; then src=$R; fi
  if [ $c != HEAD ]; then mkdir -p $src && tar -xf build-scratch/bisect/$c.tar -C $src; fi
  cmake -S $src -B /tmp/b-$c -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF \
    -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include > $L/cfg-$c.log 2>&1 || { echo "$c: configure failed"; return 1; }
  cmake --build /tmp/b-$c -j 4 --target baton-ptx share_gpu batonctl > $L/build-$c.log 2>&1 || { echo "$c: build failed"; tail -5 $L/build-$c.log; return 1; }
  (cd $src && scripts/transform-tree.sh /tmp/b-$c/tools/baton-ptx/baton-ptx /tmp/x-$c test/gpu/kernels) > $L/xf-$c.log 2>&1 || { echo "$c: transform failed"; return 1; }
  echo "$c: built"
}
t0=$(date +%s)
for c in $commits; do build_one $c & done; wait
echo "builds: $(( $(date +%s)-t0 )) s"
js() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(*[d.get(k,'-') for k in sys.argv[2:]])" "$@" 2>/dev/null || echo "- -"; }
pair() { # commit share(yes/no) tag
  local c=$1 sh=(); [ $2 = no ] && sh=(--no-share)
  local S=/tmp/b-$c/test/share/share_gpu rec=/tmp/x-$c/record.ptx reg=/bis-$$-$3
  [ -x $S ] || { echo "$3 $c: not built"; return; }
  timeout 60 $S be $rec --registry $reg "${sh[@]}" --seconds 6 --name be --json $L/$3-be.json > $L/$3-be.log 2>&1 & local be=$!
  sleep 1.5
  timeout 60 $S lc $rec --registry $reg "${sh[@]}" --seconds 3 --name lc --json $L/$3-lc.json > $L/$3-lc.log 2>&1
  wait $be; rm -f /dev/shm$reg
  printf '%-22s %-8s share=%-3s LC p50/p99 us %s  BE blocks/s pauses %s\n' $3 $c $2 "$(js $L/$3-lc.json p50_us p99_us)" "$(js $L/$3-be.json blocks_per_s pauses)"
}
alone() { local S=/tmp/b-HEAD/test/share/share_gpu; timeout 60 $S lc /tmp/x-HEAD/record.ptx --registry /bis-$$-alone --no-share --seconds 3 --name lc --json $L/alone.json > $L/alone.log 2>&1; rm -f /dev/shm/bis-$$-alone; echo "alone LC p50/p99 us $(js $L/alone.json p50_us p99_us)"; }
alone
pair HEAD no ts-HEAD
for r in 1 2; do for c in $commits; do pair $c yes r$r-$c; done; done
echo "time after bisect: $(( $(date +%s)-t0 )) s"
# MPS: kill at the LC's first request, right when BE pauses or 100 ms later.
export CUDA_MPS_PIPE_DIRECTORY=$L/pipe CUDA_MPS_LOG_DIRECTORY=$L/mpslog; mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
nvidia-cuda-mps-control -d; sleep 1
S=/tmp/b-HEAD/test/share/share_gpu; C=/tmp/b-HEAD/tools/batonctl/batonctl; rec=/tmp/x-HEAD/record.ptx
killrun() { # name delay_ms
  local reg=/bk-$$-$1
  timeout 60 $S be $rec --registry $reg --seconds 5 --name be --json $L/$1-be.json > $L/$1-be.log 2>&1 & local be=$!
  sleep 1.5
  $S lc $rec --registry $reg --seconds 30 --kernel-us 200000 --name lc > $L/$1-lc.log 2>&1 & local lc=$!
  local p=no
  for _ in $(seq 100); do $C -r $reg --json > $L/$1-before.json 2>/dev/null; grep -q '"name": "be"[^}]*"be_paused": true' $L/$1-before.json && { p=yes; break; }; sleep 0.02; done
  [ $2 -gt 0 ] && sleep $(python3 -c "print($2/1000)")
  kill -9 $lc; wait $lc 2>/dev/null; wait $be; local rc=$?
  rm -f /dev/shm$reg
  echo "$1 delay=${2}ms paused=$p BE rc=$rc $(grep -m1 -E 'FAIL|error' $L/$1-be.log)"
}
for i in 1 2 3; do killrun k0-$i 0; killrun k100-$i 100; done
echo quit | nvidia-cuda-mps-control
rm -rf $L/pipe
echo "total: $(( $(date +%s)-t0 )) s"
