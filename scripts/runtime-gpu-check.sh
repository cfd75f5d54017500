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
#    manifests) and the benchmarks (preempt_latency, variant_overhead), each
#    under a time limit;
# 4. prints a summary table last, and exits nonzero if any step failed.
# Full output of every step is in the logs; the summary names the log to read.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
build=build-gpu
logs=${OUT:-$build/logs}/runtime
mkdir -p "$logs"
xformed=$build/xformed-runtime
summary=()
failed=0

# step NAME LOG LIMIT_S COMMAND...: runs COMMAND with a time limit, appends
# its output to LOG, and records PASS / FAIL / SKIP / TIMEOUT with the
# command's last summary-looking line.
step() {
  local name=$1 log=$2 limit=$3
  shift 3
  local start=$SECONDS
  echo "=== $name: $*" | tee -a "$log"
  timeout --kill-after=10 "$limit" "$@" >>"$log" 2>&1
  local rc=$?
  local status=PASS
  case $rc in
    0) ;;
    77) status=SKIP ;;
    124|137) status=TIMEOUT; failed=1 ;;
    *) status="FAIL(rc=$rc)"; failed=1 ;;
  esac
  local detail
  detail=$(grep -E '^[0-9]+ passed, [0-9]+ failed|^SKIPPED|geometric mean|^transform-tree' "$log" | tail -1)
  [[ $status == PASS ]] || detail="${detail:+$detail; }see $(basename "$log")"
  echo "=== $name: $status after $((SECONDS - start)) s" | tee -a "$log"
  summary+=("$(printf '%-24s %-14s %5ss  %s' "$name" "$status" "$((SECONDS - start))" "$detail")")
}

: >"$logs/build.log"
step configure "$logs/build.log" 120 \
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_RUNTIME=ON \
    -DCLI11_INCLUDE_DIR="$root/.deps" ${BATON_CMAKE_ARGS:-}
targets=(baton-ptx exactly_once c_api_check corpus_check runtime_hostile
         scheduler_check)
bench_targets=(preempt_latency_runtime variant_overhead_runtime)
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
step build "$logs/build.log" 300 cmake --build "$build" --target "${targets[@]}"
step transform "$logs/build.log" 120 bash -c "
  scripts/transform-tree.sh $build/tools/baton-ptx/baton-ptx $xformed/test/corpus test/corpus &&
  scripts/transform-tree.sh $build/tools/baton-ptx/baton-ptx $xformed/test/gpu/kernels test/gpu/kernels"

record=$xformed/test/gpu/kernels/record.ptx
tests=$build/test/gpu
: >"$logs/exactly_once.log"; : >"$logs/c_api.log"; : >"$logs/corpus_check.log"
: >"$logs/hostile.log"
step exactly_once "$logs/exactly_once.log" 270 "$tests/exactly_once" "$record"
step c_api_check "$logs/c_api.log" 90 "$tests/c_api_check" "$record"
: >"$logs/scheduler_check.log"
step scheduler_check "$logs/scheduler_check.log" 150 \
  "$tests/scheduler_check" "$record"
step runtime_hostile "$logs/hostile.log" 200 "$tests/runtime_hostile" "$record" \
  "$xformed/test/gpu/kernels/fault.ptx"
step corpus_check "$logs/corpus_check.log" 240 \
  "$tests/corpus_check" test/corpus/manifest.txt "$xformed/test/corpus"
step corpus_check.triton "$logs/corpus_check.log" 120 \
  "$tests/corpus_check" test/corpus/triton-manifest.txt "$xformed/test/corpus"

if ((${#bench_targets[@]})); then
  : >"$logs/benchmarks.log"
  step preempt_latency "$logs/benchmarks.log" 150 \
    "$build/bench/runtime/preempt_latency_runtime" "$record" 300
  step variant_overhead "$logs/benchmarks.log" 180 \
    "$build/bench/runtime/variant_overhead_runtime" test/corpus/manifest.txt "$xformed/test/corpus"
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
  fi
  grep -hE '^(FAIL|TIMEOUT)' "$logs"/*.log | head -20
  echo "logs: $logs"
} | tee "$logs/summary.txt"
exit $failed
