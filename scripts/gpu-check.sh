#!/usr/bin/env bash
# One run on a GPU machine (no LLVM needed): builds the LLVM-free parts,
# transforms the corpus and the exactly-once kernels, checks every variant
# against its original (with preemption storms), times the variants, and
# measures preemption latency, then runs the host runtime's checks
# (scripts/runtime-gpu-check.sh). Logs go to $OUT (or build-gpu/logs); a
# short summary is printed last.
#   CLI11 headers: installed, or carried in .deps/CLI (CLI11_INCLUDE_DIR).
set -uo pipefail
cd "$(dirname "$0")/.."
build=${BATON_GPU_BUILD_DIR:-build-gpu}
logs=${OUT:-$build/logs}
mkdir -p "$logs"
cli=()
[[ -d .deps/CLI ]] && cli=(-DCLI11_INCLUDE_DIR="$PWD/.deps")
gen=(); command -v ninja >/dev/null && gen=(-G Ninja)
cmake -S . -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DBATON_ENABLE_LLVM=OFF "${cli[@]}" ${BATON_CMAKE_ARGS:-} >"$logs/configure.log" 2>&1 || {
  tail -30 "$logs/configure.log"; exit 1; }
cmake --build "$build" -j "$(nproc)" --target baton-ptx variant_check \
  variant_overhead preempt_latency >"$logs/build.log" 2>&1 || {
  tail -40 "$logs/build.log"; exit 1; }

xformed=$build/xformed
scripts/transform-tree.sh "$build/tools/baton-ptx/baton-ptx" "$xformed" \
  test/corpus test/variants-gpu >"$logs/transform.log" 2>&1 || { tail -20 "$logs/transform.log"; exit 1; }
manifests=(test/variants-gpu/kernels/manifest.txt test/corpus/manifest.txt
           test/corpus/triton-manifest.txt test/corpus/triton-sm80-manifest.txt)

echo "== variant equivalence (original vs slice vs PTB, preempted and resumed)"
"$build/test/variants-gpu/variant_check" "$xformed" "${manifests[@]}" \
  >"$logs/variant_check.log" 2>&1
check_rc=$?
grep -E "^(FAIL|SKIPPED)" "$logs/variant_check.log" | head -40

echo "== variant overhead when never preempted"
"$build/bench/variant_overhead" "$xformed" "${manifests[@]:1}" \
  >"$logs/variant_overhead.log" 2>&1

echo "== preemption latency"
"$build/bench/preempt_latency" "$xformed/kernels/blocks.ptx" 200 \
  >"$logs/preempt_latency.log" 2>&1

echo "== host runtime (libbaton): exactly-once storms, C API, corpus, benches"
scripts/runtime-gpu-check.sh >"$logs/runtime-gpu-check.log" 2>&1
runtime_rc=$?

echo
echo "================ summary ================"
head -1 "$logs/variant_check.log"
tail -1 "$logs/variant_check.log"
tail -1 "$logs/variant_overhead.log"
cat "$logs/preempt_latency.log"
sed -n '/runtime-gpu-check summary/,$p' "$logs/runtime-gpu-check.log"
((check_rc == 0 && runtime_rc == 0))
