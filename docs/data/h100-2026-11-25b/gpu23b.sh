#!/usr/bin/env bash
# Twenty-third session, call b: the plain finalize for BE work that yields
# (time slicing), and which pause an MPS client's SIGKILL must land on to
# take the BE process down.
set -u
cd "$(dirname "$0")/.."
R=$PWD; L=$OUT/b; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
git_rev=$(cat build-scratch/rev.txt 2>/dev/null); echo "tree: $git_rev"
t0=$(date +%s)
cmake -S . -B /tmp/bw -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include > $L/cfg.log 2>&1
cmake --build /tmp/bw --target baton-ptx share_gpu batonctl > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
scripts/transform-tree.sh /tmp/bw/tools/baton-ptx/baton-ptx /tmp/xw test/gpu/kernels > $L/xf.log 2>&1 || { cat $L/xf.log; exit 1; }
echo "build: $(( $(date +%s)-t0 )) s"
S=/tmp/bw/test/share/share_gpu; C=/tmp/bw/tools/batonctl/batonctl; rec=/tmp/xw/record.ptx
js() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(*[d.get(k,'-') for k in sys.argv[2:]])" "$@" 2>/dev/null || echo "- -"; }
pair() { # tag share(yes/no) be-flags...
  local tag=$1 shr=$2; shift 2; local sh=(); [ $shr = no ] && sh=(--no-share)
  local reg=/b23-$$-$tag
  timeout 60 $S be $rec --registry $reg "${sh[@]}" "$@" --seconds 6 --name be --json $L/$tag-be.json > $L/$tag-be.log 2>&1 & local be=$!
  sleep 1.5
  timeout 60 $S lc $rec --registry $reg "${sh[@]}" --seconds 3 --name lc --json $L/$tag-lc.json > $L/$tag-lc.log 2>&1
  wait $be; rm -f /dev/shm$reg
  printf '%-28s LC p50/p99 us %s  BE blocks/s pauses %s\n' "$tag $*" "$(js $L/$tag-lc.json p50_us p99_us)" "$(js $L/$tag-be.json blocks_per_s pauses)"
}
timeout 60 $S lc $rec --registry /b23-$$-alone --no-share --seconds 3 --name lc --json $L/alone.json > $L/alone.log 2>&1; rm -f /dev/shm/b23-$$-alone
echo "alone LC p50/p99 us $(js $L/alone.json p50_us p99_us)"
pair timeslice no
for r in 1 2 3; do
  pair r$r-plain yes
  pair r$r-dependent yes --dependent-finalize
  pair r$r-until-yield yes --dependent-finalize-until-yield
done
echo "time: $(( $(date +%s)-t0 )) s"
export CUDA_MPS_PIPE_DIRECTORY=$L/pipe CUDA_MPS_LOG_DIRECTORY=$L/mpslog; mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
nvidia-cuda-mps-control -d; sleep 1
paused_at() { python3 - "$1" "$2" <<'PY'
import json,sys
try: d=json.load(open(sys.argv[1]))
except Exception: print(0); sys.exit()
for p in d.get("processes",[]):
    if p.get("name")=="be" and p.get("be_paused") and p.get("be_pauses",0)>=int(sys.argv[2]): print(1); break
else: print(0)
PY
}
killrun() { # name pause-number first-kernel-us
  local reg=/bk-$$-$1 first=(); [ $3 -gt 0 ] && first=(--first-kernel-us $3)
  timeout 60 $S be $rec --registry $reg --seconds 5 --name be --json $L/$1-be.json > $L/$1-be.log 2>&1 & local be=$!
  sleep 1.5
  $S lc $rec --registry $reg --seconds 30 --kernel-us 200000 "${first[@]}" --name lc > $L/$1-lc.log 2>&1 & local lc=$!
  local p=no
  for _ in $(seq 100); do $C -r $reg --json > $L/$1-before.json 2>/dev/null; [ "$(paused_at $L/$1-before.json $2)" = 1 ] && { p=yes; break; }; sleep 0.01; done
  kill -9 $lc; wait $lc 2>/dev/null; wait $be; local rc=$?
  rm -f /dev/shm$reg
  echo "$1 at-pause=$2 first-kernel-us=$3 paused=$p BE rc=$rc $(grep -m1 -E 'FAIL|error' $L/$1-be.log)"
}
for i in 1 2 3; do killrun first-$i 1 0; killrun second-$i 2 2000; done
echo quit | nvidia-cuda-mps-control
rm -rf $L/pipe
echo "total: $(( $(date +%s)-t0 )) s"
cd $OUT && tar czf b.tgz b && rm -rf b
