#!/usr/bin/env bash
# Runs the three libFuzzer targets side by side from an existing fuzz build
# (scripts/fuzz.sh makes one), for spare cores on a bigger machine:
#   scripts/fuzz-parallel.sh FUZZ_BIN_DIR SECONDS WORKERS_PER_TARGET OUT_DIR
# Each target is seeded with the test corpus, the lit inputs and the saved
# regressions; crashing inputs and each worker's final statistics land in
# OUT_DIR, and a line per target ("fuzz TARGET: N runs, K crashes") is
# printed at the end.
set -uo pipefail
cd "$(dirname "$0")/.."
bin=${1:?fuzz binary directory} seconds=${2:?seconds} workers=${3:?workers}
out=${4:?output directory}
mkdir -p "$out"
bin=$(realpath "$bin") out=$(realpath "$out")
for target in Parse RoundTrip Transform; do
  corpus=$out/corpus-$target
  mkdir -p "$corpus" "$out/crashes-$target" "$out/logs-$target"
  cp test/corpus/*/*.ptx test/PTX/*.ptx test/PTX/Inputs/*.ptx \
     test/fuzz/regressions/*.ptx "$corpus"/ 2>/dev/null
  (cd "$out/logs-$target" &&
   nice -n 19 "$bin/${target}Fuzzer" "$corpus" \
     -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=4096 \
     -jobs="$workers" -workers="$workers" -print_final_stats=1 \
     -artifact_prefix="$out/crashes-$target/" >/dev/null 2>&1) &
done
wait
for target in Parse RoundTrip Transform; do
  runs=$(cat "$out/logs-$target"/fuzz-*.log 2>/dev/null |
         awk '/^stat::number_of_executed_units:/ { n += $2 } END { print n + 0 }')
  crashes=$(find "$out/crashes-$target" -type f | wc -l)
  echo "fuzz $target: ${runs:-0} runs in $workers x $seconds s, $crashes crashing inputs"
done
