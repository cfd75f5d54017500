#!/usr/bin/env bash
# plugin_compile_time.sh - compile-time cost of the LLVM plugin.
#
# Times the clang-22 device compile (-O3, sm_90a, to PTX) of a generated
# file with N kernels (default 128) and of every test/corpus/src/*.cu, with
# and without -fpass-plugin=BatonPlugin.so, with the plugin at PipelineStart
# (-mllvm -baton-at=start) for comparison, and with -baton-lazy (no variants
# at compile time). Then the whole build of an object (clang -c: host and
# device compile, ptxas, fatbinary) of the generated file: without the
# plugin, with it, and with -baton-lazy --cuda-include-ptx, and what the
# lazy build leaves to the first launch (the side-module build the shim
# runs, timed through baton-recompile with as many jobs as cores). Prints
# the median of RUNS runs (default 5) per configuration, and the ptxas
# register counts of one kernel's original and variants.
#
# Usage: bench/plugin_compile_time.sh [PLUGIN] (default build/lib/LLVM/)
#        (baton-recompile is taken from the build directory of the plugin)
# Environment: RUNS, KERNELS, CLANG, CUDA_PATH.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PLUGIN="${1:-$ROOT/build/lib/LLVM/BatonPlugin.so}"
RUNS="${RUNS:-5}"
KERNELS="${KERNELS:-128}"
CLANG="${CLANG:-clang-22}"
CUDA_PATH="${CUDA_PATH:-/usr/local/cuda}"
COMMON=(-x cuda --cuda-gpu-arch=sm_90a -O3 --cuda-path="$CUDA_PATH"
        -Wno-unknown-cuda-version -Wno-backend-plugin
        -I"$CUDA_PATH/include/cccl")
DEVICE_ONLY=("${COMMON[@]}" --cuda-device-only -S)
FLAGS=("${DEVICE_ONLY[@]}") # what once() compiles with
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

# N kernels, each with a guard, a shared-memory reduction with barriers, and
# a grid-stride loop: the constructs the transform rewrites.
gen() {
  for i in $(seq 1 "$KERNELS"); do
    cat <<CU
__global__ void k$i(const float *in, float *out, int n) {
  __shared__ float s[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.f;
  for (int j = i; j < n; j += gridDim.x * blockDim.x) acc += in[j] * $i.f;
  s[threadIdx.x] = acc;
  __syncthreads();
  for (int w = 128; w > 0; w >>= 1) {
    if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}
CU
  done
}
gen > "$WORK/many.cu"

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# seconds for one compile of $1 with extra flags ${@:2}
once() {
  local src="$1"; shift
  local t0 t1
  t0=$(date +%s.%N)
  "$CLANG" "${FLAGS[@]}" "$@" -o "$WORK/out.ptx" "$src" 2>/dev/null
  t1=$(date +%s.%N)
  echo "$t1 - $t0" | bc
}
timeit() {
  local src="$1"; shift
  for _ in $(seq 1 "$RUNS"); do once "$src" "$@"; done | median
}

printf "%-22s %10s %10s %10s %10s %8s %8s\n" file plain plugin at-start lazy \
  ratio lazy-ratio
for src in "$WORK/many.cu" "$ROOT"/test/corpus/src/*.cu; do
  name=$(basename "$src" .cu)
  extra=()
  [[ $name == refuse_dynpar ]] && extra=(-fgpu-rdc)
  [[ $name == refuse_cluster ]] && extra=(-D_CG_CLUSTER_INTRINSICS_AVAILABLE)
  plain=$(timeit "$src" "${extra[@]}")
  plug=$(timeit "$src" "${extra[@]}" -fpass-plugin="$PLUGIN")
  start=$(timeit "$src" "${extra[@]}" -fpass-plugin="$PLUGIN" -mllvm -baton-at=start)
  lazy=$(timeit "$src" "${extra[@]}" -fpass-plugin="$PLUGIN" -mllvm -baton-lazy)
  printf "%-22s %10.3f %10.3f %10.3f %10.3f %8.2f %8.2f\n" "$name" "$plain" \
    "$plug" "$start" "$lazy" "$(echo "$plug / $plain" | bc -l)" \
    "$(echo "$lazy / $plain" | bc -l)"
done

# The whole build of one object, and the lazy build's first launch.
FLAGS=("${COMMON[@]}" -c)
RECOMPILE="$(dirname "$PLUGIN")/../../tools/baton-recompile/baton-recompile"
plain=$(timeit "$WORK/many.cu")
plug=$(timeit "$WORK/many.cu" -fpass-plugin="$PLUGIN")
lazy=$(timeit "$WORK/many.cu" -fpass-plugin="$PLUGIN" -mllvm -baton-lazy \
  --cuda-include-ptx=sm_90a)
"$CLANG" "${FLAGS[@]}" -fpass-plugin="$PLUGIN" -mllvm -baton-lazy \
  --cuda-include-ptx=sm_90a -o "$WORK/lazy.o" "$WORK/many.cu" 2>/dev/null
first=$(for _ in $(seq 1 "$RUNS"); do
  t0=$(date +%s.%N)
  "$RECOMPILE" -q --force --cache-dir "$WORK/cache" --arch sm_90 \
    -j "$(nproc)" "$WORK/lazy.o" >/dev/null
  t1=$(date +%s.%N)
  echo "$t1 - $t0" | bc
done | median)
echo "whole build of many.o (clang -c):"
printf "  %-10s %10s %10s %10s %8s %8s %14s\n" "" plain plugin lazy ratio \
  lazy-ratio first-launch
printf "  %-10s %10.3f %10.3f %10.3f %8.2f %8.2f %14.3f\n" many "$plain" \
  "$plug" "$lazy" "$(echo "$plug / $plain" | bc -l)" \
  "$(echo "$lazy / $plain" | bc -l)" "$first"

# Registers of the first generated kernel and its variants, per placement.
FLAGS=("${DEVICE_ONLY[@]}")
for at in last start; do
  "$CLANG" "${FLAGS[@]}" -fpass-plugin="$PLUGIN" -mllvm -baton-at=$at \
    -o "$WORK/$at.ptx" "$WORK/many.cu" 2>/dev/null
  echo "registers (plugin at $at):"
  "$CUDA_PATH/bin/ptxas" -arch=sm_90a -v "$WORK/$at.ptx" -o /dev/null 2>&1 |
    awk '/Compiling entry function/ {f=$(NF-2)} /Used [0-9]+ registers/ {print "  " f, $5, "registers"}' |
    grep -E "'_Z2k1PKfPfi(__baton_slice|__baton_ptb)?'" || true
done
