#!/usr/bin/env bash
# Fifty-seventh session, call f (an H200): the counted reduction a review
# found (546cf53). First what the hardware gives: bar.red.popc with a
# thread count of 64 in a 128-thread CTA, each group's own count. Then the
# variants of test/PTX/ptb-divergence.ptx's kernels, counted_vote among
# them (an exit on that count before a bar.sync: its PTB variant now
# drains), against their originals with variant_check under preemption.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/f; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $L/gpu.txt
cat > /tmp/counted.cu <<'X'
#include <cstdio>
__global__ void k(int *o) {
  unsigned t = threadIdx.x;
  int p = t < 32, r;
  asm volatile("{.reg .pred q; setp.ne.s32 q, %1, 0; bar.red.popc.u32 %0, 1, 64, q;}"
               : "=r"(r) : "r"(p));
  o[t] = r;
}
int main() {
  int *o;
  cudaMallocManaged(&o, 512);
  k<<<1, 128>>>(o);
  printf("%s\n", cudaGetErrorString(cudaDeviceSynchronize()));
  for (int i = 0; i < 128; i += 32) printf("warp %d: %d\n", i / 32, o[i]);
}
X
/usr/local/cuda/bin/nvcc -arch=sm_90 /tmp/counted.cu -o /tmp/counted && /tmp/counted | tee $L/counted.txt
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3)"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu --target baton-ptx variant_check) > $L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
mkdir -p /tmp/div && build-gpu/tools/baton-ptx/baton-ptx test/PTX/ptb-divergence.ptx -o /tmp/div/ptb-divergence.ptx
cat > $L/manifest.txt <<'X'
ptb-divergence.ptx counted_vote 97,1,1 128,1,1 0 inout:u32:1
ptb-divergence.ptx vote_then_part 97,1,1 128,1,1 0 inout:u32:1 u32:100
ptb-divergence.ptx vote_count 97,1,1 128,1,1 0 inout:u32:1 u32:100
X
timeout 200 build-gpu/test/variants-gpu/variant_check /tmp/div $L/manifest.txt > $L/check.log 2>&1; echo "variant_check rc=$? $(( $(date +%s)-t0 ))s"
grep -E '^(ok|FAIL)|passed|failed' $L/check.log | head -12
cd $OUT && tar czf f.tgz f && rm -rf f
