#!/usr/bin/env bash
# The host runtime's GPU check, run from the repository root on a machine
# with an NVIDIA GPU (cmake and ninja; no LLVM, no GoogleTest needed):
#
#   scripts/runtime-gpu-check.sh    # logs under $OUT if set, else build-gpu/logs
#
# 1. configures and builds baton-ptx, the runtime, the GPU tests and benches
#    in build-gpu/ (CLI11 headers from .deps/);
# 2. runs baton-ptx on test/corpus/*/*.ptx and test/gpu/kernels/*.ptx into
#    build-gpu/xformed-runtime/ at the same relative paths;
# 3. runs the GPU tests (exactly_once, c_api_check, corpus_check on both
#    manifests) and the benchmarks (preempt_latency, variant_overhead,
#    preempt_policy), each under a time limit;
# 4. prints a summary table last, and exits nonzero if any step failed.
# Full output of every step is in the logs; the summary names the log to read.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
build=build-gpu
logs=${OUT:-$build/logs}/runtime
mkdir -p "$logs"
xformed=$build/xformed-runtime
# step NAME LIMIT_S LOG COMMAND... (scripts/lib/step.sh): each stage under a
# time limit, its output appended to LOG, a row of the summary table.
step_row='%-24s %-14s %5ss  %s'
# shellcheck source=scripts/lib/step.sh
source "$root/scripts/lib/step.sh"

step configure 120 "$logs/build.log" \
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_RUNTIME=ON \
    -DCLI11_INCLUDE_DIR="$root/.deps" ${BATON_CMAKE_ARGS:-}
targets=(baton-ptx exactly_once c_api_check corpus_check runtime_hostile
         scheduler_check)
bench_targets=(preempt_latency_runtime variant_overhead_runtime preempt_policy)
# (Not a pipe into grep -q: grep exits at the first match, ninja dies of
# SIGPIPE, and pipefail turns that into "not configured".)
all_targets=$(ninja -C "$build" -t targets all 2>/dev/null)
if grep -q '^preempt_latency_runtime:' <<<"$all_targets"; then
  targets+=("${bench_targets[@]}")
else
  echo "gpu-check: benchmarks not configured (bench/CMakeLists.txt needs" \
       "add_subdirectory(runtime)); skipping them" | tee -a "$logs/build.log"
  bench_targets=()
fi
step build 300 "$logs/build.log" cmake --build "$build" --target "${targets[@]}"
step transform 120 "$logs/build.log" bash -c "
  scripts/transform-tree.sh $build/tools/baton-ptx/baton-ptx $xformed/test/corpus test/corpus &&
  scripts/transform-tree.sh $build/tools/baton-ptx/baton-ptx $xformed/test/gpu/kernels test/gpu/kernels"

record=$xformed/test/gpu/kernels/record.ptx
tests=$build/test/gpu
step exactly_once 270 "$logs/exactly_once.log" "$tests/exactly_once" "$record"
step c_api_check 90 "$logs/c_api.log" "$tests/c_api_check" "$record"
step scheduler_check 150 "$logs/scheduler_check.log" \
  "$tests/scheduler_check" "$record"
step runtime_hostile 200 "$logs/hostile.log" \
  "$tests/runtime_hostile" "$record" "$xformed/test/gpu/kernels/fault.ptx"
step corpus_check 240 "$logs/corpus_check.log" \
  "$tests/corpus_check" test/corpus/manifest.txt "$xformed/test/corpus"
step corpus_check.triton 120 "$logs/corpus_check.log" \
  "$tests/corpus_check" test/corpus/triton-manifest.txt "$xformed/test/corpus"
step corpus_check.triton-sm80 120 "$logs/corpus_check.log" \
  "$tests/corpus_check" test/corpus/triton-sm80-manifest.txt "$xformed/test/corpus"

if ((${#bench_targets[@]})); then
  step preempt_latency 150 "$logs/benchmarks.log" \
    "$build/bench/runtime/preempt_latency_runtime" "$record" 300
  step variant_overhead 180 "$logs/benchmarks.log" \
    "$build/bench/runtime/variant_overhead_runtime" test/corpus/manifest.txt "$xformed/test/corpus"
  step preempt_policy 240 "$logs/preempt_policy.log" \
    "$build/bench/runtime/preempt_policy" "$record" 200
fi

{
  echo
  echo "================ runtime-gpu-check summary ================"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | sed 's/^/device: /'
  printf '%s\n' "${summary[@]}"
  if ((${#bench_targets[@]})); then
    echo "--- preemption latency (Launch::pause, host-observed) ---"
    grep -E '^ *(block|[0-9]+ us)' "$logs/benchmarks.log"
    echo "--- variant overhead ---"
    grep -E 'geometric mean' "$logs/benchmarks.log"
    echo "--- preemption latency at the scheduler's widths (target p99 <= block + 20 us) ---"
    grep -E '^(block |( *[0-9]+){2}\.)' "$logs/preempt_policy.log"
  fi
  grep -hE '^(FAIL|TIMEOUT)' "$logs"/*.log | head -20
  echo "logs: $logs"
} | tee "$logs/summary.txt"
exit $failed
