#!/usr/bin/env bash
# GPU test of real library kernels through the launch interposer (ctest
# gpu.preload_cub): bench/preload/cub_check.cu, CUB's reduce, scan, radix
# sort, histogram and select on 4M random keys, checked against the CPU,
# built with nvcc (PTX and SASS for sm_90) and recompiled with
# baton-recompile. Runs it plain, preloaded best-effort, and preloaded
# best-effort next to a latency-critical peer (the interposer's demo
# program, preloaded latency-critical, in a loop) in a registry of their
# own, so that CUB's kernels yield mid-flight. Passes if every run's
# results are right, the best-effort runs scheduled every launch, and the
# registry saw the best-effort process pause at least 5 times. Exit 77
# without a GPU.
#
#   cub-check.sh NVCC BATON_RECOMPILE LIBBATON_PRELOAD BATONCTL WORKDIR
set -euo pipefail
# shellcheck source=test/Preload/checks.sh
source "$(dirname "$0")/checks.sh"
take_peer_script_args "$@"
skip_without_gpu
src=$(cd "$(dirname "$0")/../../bench/preload" && pwd)
rm -rf "$work" && mkdir -p "$work" && cd "$work"
arch=(-gencode arch=compute_90,code=compute_90 -gencode arch=compute_90,code=sm_90)
"$nvcc" -O3 -std=c++17 "${arch[@]}" "$src/cub_check.cu" -o cub_check
"$nvcc" -O3 -shared -Xcompiler -fPIC "${arch[@]}" "$src/trainkernels.cu" -o libtrainkernels.so
"$nvcc" -O3 "$src/train.cpp" -L. -ltrainkernels -Xlinker -rpath -Xlinker "$PWD" -o train
"$recompile" cub_check --cache-dir cache
"$recompile" libtrainkernels.so --cache-dir cache -q

rounds=20
timeout 300 ./cub_check $rounds >plain.log 2>&1 || true
timeout 300 env "${BE_VARIANTS_ONLY[@]}" LD_PRELOAD="$preload" \
  BATON_SCHEDULE=best-effort BATON_VERBOSE=1 \
  BATON_CACHE_DIR="$PWD/cache" BATON_SHARE=0 ./cub_check $rounds >baton.log 2>&1 || true

# The peer: small training steps, every launch latency-critical, until the
# best-effort run ends; the registry's view of the best-effort process is
# sampled meanwhile (its pauses and resumes). The best-effort process
# resumes in every gap between the peer's launches (no linger), so that its
# kernels are paused and resumed as often as the peer allows.
registry=/baton-cub-check-$$
export BATON_SHARE_REGISTRY=$registry
(while [[ ! -f done ]]; do
   LD_PRELOAD="$preload" BATON_SCHEDULE=latency-critical BATON_CACHE_DIR="$PWD/cache" \
     timeout 120 ./train --steps 20000 --warmup 1 --batch 64 --inputs 128 --hidden 128 \
     --layers 2 --classes 10 >>peer.log 2>&1 || break
 done) &
peer=$!
(while [[ ! -f done ]]; do "$batonctl" --json >>registry.jsonl 2>/dev/null || true; sleep 0.2; done) &
watch=$!
sleep 2
timeout 300 env "${BE_VARIANTS_ONLY[@]}" LD_PRELOAD="$preload" \
  BATON_SCHEDULE=best-effort BATON_VERBOSE=1 \
  BATON_CACHE_DIR="$PWD/cache" BATON_SHARE_LINGER_US=0 ./cub_check $rounds \
  >storm.log 2>&1 || true
touch done
wait $peer $watch || true
rm -f "/dev/shm${registry}"
unset BATON_SHARE_REGISTRY
grep -E "cub_check:|baton-preload:" plain.log baton.log storm.log
pauses=$(grep -o '"be_pauses": [0-9]*' registry.jsonl | awk '{print $2}' | sort -n | tail -1)
echo "most pauses the registry saw for the best-effort run: ${pauses:-none}"

all_right() { grep -q "cub_check: $((rounds * 5)) passed, 0 failed" "$1"; }
check "plain run: CUB's results right" 'all_right plain.log'
check "preloaded best-effort: results right" 'all_right baton.log'
check "preloaded best-effort: every launch scheduled" \
  'all_scheduled baton.log'
check "next to a latency-critical peer: results right" 'all_right storm.log'
check "next to a latency-critical peer: every launch scheduled" \
  'all_scheduled storm.log'
check "the best-effort run paused for the peer, again and again" '[[ ${pauses:-0} -ge 5 ]]'
checks_done
