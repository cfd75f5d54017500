#!/usr/bin/env bash
# GPU test of the launch interposer (ctest gpu.preload): builds the demo's
# training library (bench/preload) with nvcc as any CUDA library is built,
# recompiles it with baton-recompile, and runs a few small training steps
# with and without libbaton_preload.so (BATON_SCHEDULE=best-effort). Passes
# if the parameters are bitwise the same, every launch was scheduled, and a
# latency-critical run announces its launches. Exit 77 without a GPU.
#
#   gpu-check.sh NVCC BATON_RECOMPILE LIBBATON_PRELOAD WORKDIR
set -euo pipefail
if (($# != 4)); then
  echo "usage: $0 NVCC BATON_RECOMPILE LIBBATON_PRELOAD WORKDIR" >&2
  exit 2
fi
nvcc=$1 recompile=$2 preload=$3 work=$4
# shellcheck source=test/Preload/checks.sh
source "$(dirname "$0")/checks.sh"
skip_without_gpu
src=$(cd "$(dirname "$0")/../../bench/preload" && pwd)
rm -rf "$work" && mkdir -p "$work" && cd "$work"
"$nvcc" -O3 -shared -Xcompiler -fPIC -gencode arch=compute_90,code=compute_90 \
  -gencode arch=compute_90,code=sm_90 "$src/trainkernels.cu" -o libtrainkernels.so
"$nvcc" -O3 "$src/train.cpp" -L. -ltrainkernels -Xlinker -rpath -Xlinker "$PWD" -o train
"$recompile" libtrainkernels.so --cache-dir cache -q

size=(--steps 20 --warmup 2 --batch 256 --inputs 128 --hidden 256 --layers 2 --classes 100)
timeout 120 ./train "${size[@]}" >plain.log 2>&1
timeout 120 env "${BE_VARIANTS_ONLY[@]}" LD_PRELOAD="$preload" \
  BATON_SCHEDULE=best-effort BATON_VERBOSE=1 \
  BATON_CACHE_DIR="$PWD/cache" BATON_SHARE=0 ./train "${size[@]}" >baton.log 2>&1
cat plain.log baton.log
sum() { sed -n 's/.*checksum \([0-9a-f]*\).*/\1/p' "$1"; }
check "parameters bitwise equal with Baton" '[[ -n "$(sum plain.log)" && "$(sum plain.log)" == "$(sum baton.log)" ]]'
check "launches scheduled, none unchanged" \
  'all_scheduled baton.log'
check "kernels found in the side module" \
  'grep -q "PTB and slice variants from" baton.log'

timeout 120 env LD_PRELOAD="$preload" BATON_SCHEDULE=latency-critical BATON_VERBOSE=1 \
  BATON_SHARE_REGISTRY=/baton-gpu-check-$$ ./train "${size[@]}" >lc.log 2>&1
rm -f /dev/shm/baton-gpu-check-$$
cat lc.log
check "latency-critical launches announced, results unchanged" \
  '[[ "$(sum lc.log)" == "$(sum plain.log)" ]] && grep -Eq "baton-preload: [1-9][0-9]* launches announced" lc.log'
checks_done
