#!/usr/bin/env bash
# The launch interposer on a GPU (docs/offline.md): an unmodified training
# program, built by nvcc from a CUDA library of its own, recompiled offline
# and run under libbaton_preload.so, next to a PyTorch inference process.
# Run from the repository root on a GPU machine (cmake, ninja, nvcc,
# python3 with PyTorch; no LLVM):
#
#   bench/preload/run.sh    # logs and JSON under $OUT/preload if OUT is
#                           # set, else build-gpu/logs/preload
#
# 1. builds baton-recompile and libbaton_preload.so (CLI11 from .deps/), and
#    with nvcc libtrainkernels.so (static cudart; compute_90 PTX and sm_90
#    SASS) and the program `train` that uses it;
# 2. recompiles libtrainkernels.so with baton-recompile into a cache of the
#    run's own (a second run must be a cache hit);
# 3. demo.py: correctness (40 steps with and without the interposer,
#    BATON_SCHEDULE=best-effort: the parameters' checksums must be equal bit
#    for bit, and launches scheduled); overhead on training alone (REPS
#    interleaved runs of STEPS steps: plain, preloaded with scheduling off,
#    preloaded best-effort; medians); inference (infer.py: a fp16
#    transformer encoder, Poisson requests at RATE/s for PAIR_SECONDS) alone,
#    alone under the interposer as latency-critical, next to training
#    without Baton, and next to training with Baton (training preloaded
#    best-effort, inference preloaded latency-critical, meeting in a
#    registry of their own, docs/sharing.md); then inference alone and both
#    pairs again under MPS, with a private control daemon (MPS=0 skips
#    this; where the daemon cannot start, the table says why);
# 4. prints a table last, writes preload.json; exits nonzero if a step
#    failed, 77 without a GPU.
#
# Environment: STEPS (150), REPS (3), PAIR_SECONDS (20), RATE (50), MPS (1),
# BATON_GPU_BUILD_DIR (build-gpu), BATON_CMAKE_ARGS. About 5 minutes after
# the build, 7 with MPS.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
build=${BATON_GPU_BUILD_DIR:-build-gpu}
logs=${OUT:-$build/logs}/preload
mkdir -p "$logs" "$build/preload-demo"
work=$(cd "$build/preload-demo" && pwd)

if ! nvidia-smi -L >/dev/null 2>&1; then
  echo "SKIPPED: no GPU (nvidia-smi -L failed)"
  exit 77
fi
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}

# quiet NAME LIMIT COMMAND...: runs a build step, output to $logs/NAME.log,
# shown only if it fails.
quiet() {
  local name=$1 limit=$2
  shift 2
  echo "=== $name"
  if ! timeout --kill-after=10 "$limit" "$@" >"$logs/$name.log" 2>&1; then
    tail -n 40 "$logs/$name.log"
    echo "=== $name FAILED"
    exit 1
  fi
}

cli=()
[[ -d .deps/CLI ]] && cli=(-DCLI11_INCLUDE_DIR="$root/.deps")
quiet configure 180 cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DBATON_ENABLE_LLVM=OFF "${cli[@]}" ${BATON_CMAKE_ARGS:-}
quiet build 600 cmake --build "$build" --target baton-recompile BatonPreload
preload=$(cd "$build/lib/Preload" && pwd)/libbaton_preload.so
quiet nvcc-library 300 "$nvcc" -O3 -shared -Xcompiler -fPIC \
  -gencode arch=compute_90,code=compute_90 -gencode arch=compute_90,code=sm_90 \
  bench/preload/trainkernels.cu -o "$work/libtrainkernels.so"
quiet nvcc-program 120 "$nvcc" -O3 bench/preload/train.cpp -L"$work" \
  -ltrainkernels -Xlinker -rpath -Xlinker "$work" -o "$work/train"

rm -rf "$work/cache"
quiet recompile 300 "$build/tools/baton-recompile/baton-recompile" \
  "$work/libtrainkernels.so" --cache-dir "$work/cache" --arch sm_90
cat "$logs/recompile.log"
quiet recompile-again 60 "$build/tools/baton-recompile/baton-recompile" \
  "$work/libtrainkernels.so" --cache-dir "$work/cache" --arch sm_90 -q
grep -q "(cached)" "$logs/recompile-again.log" || {
  echo "=== second baton-recompile was not a cache hit"
  exit 1
}

rc=0
timeout --kill-after=10 1500 python3 bench/preload/demo.py --work "$work" \
  --preload "$preload" --out "$logs" --steps "${STEPS:-150}" \
  --reps "${REPS:-3}" --pair-seconds "${PAIR_SECONDS:-20}" \
  --rate "${RATE:-50}" $([[ ${MPS:-1} == 0 ]] && echo --no-mps) || rc=$?
rm -f /dev/shm/baton-preload-demo-*
echo "logs and preload.json in $logs"
exit $rc
