#!/usr/bin/env bash
# What the LC interposer costs a PyTorch inference process alone.
set -u
cd "$(dirname "$0")/.."
export PATH=$PATH:/usr/local/cuda/bin
L=$OUT/f; mkdir -p $L
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$PWD/.deps > $L/cfg.log 2>&1
cmake --build build-gpu -j16 --target baton_preload > $L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
pre=$PWD/build-gpu/lib/Preload/libbaton_preload.so
py=$(command -v python3)
run() { # NAME ENV...
  local name=$1; shift
  env "$@" timeout 60 $py bench/preload/infer.py --seconds 8 --rate 50 --json $L/$name.json > $L/$name.log 2>&1
  echo "$name: $(grep '^infer:' $L/$name.log)"
}
for r in 1 2; do
  run plain-$r X=1
  run preload-off-$r LD_PRELOAD=$pre
  run lc-noshare-$r LD_PRELOAD=$pre BATON_SCHEDULE=latency-critical BATON_SHARE=0
  run lc-share-$r LD_PRELOAD=$pre BATON_SCHEDULE=latency-critical BATON_SHARE_REGISTRY=/b12f-$r
  run lc-events-$r LD_PRELOAD=$pre BATON_SCHEDULE=latency-critical BATON_SHARE_REGISTRY=/b12fe-$r BATON_SHARE_END=events
done
cd $OUT && tar czf f.tgz f && rm -rf f
