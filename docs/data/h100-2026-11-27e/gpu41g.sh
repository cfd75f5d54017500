#!/usr/bin/env bash
# Forty-first session, call g: Triton's kernels of the corpus compiled (not
# run) for Ampere, Blackwell and consumer Blackwell (gen-triton-corpus.py
# --arch; call f's first form, TRITON_OVERRIDE_ARCH, kept the sm_90a
# target), for the CPU
# corpus checks: Triton's sm_80 PTX (mma.sync, cp.async pipelines) is what
# A100 training clusters run.
set -u
cd "$(dirname "$0")/../../.."
L=$OUT/g; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
for arch in sm80 sm100 sm120; do
  echo "== $arch"
  timeout 150 python3 scripts/gen-triton-corpus.py $L --arch $arch 2>&1 | tail -40
done | tee $L/gen.log
cd $OUT && tar czf g.tgz g && rm -rf g
