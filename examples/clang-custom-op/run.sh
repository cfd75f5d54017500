#!/usr/bin/env bash
# run.sh DEMO PLAIN_DEMO WORKDIR [LAZY_DEMO] - the clang custom-op example
# on a GPU.
#
# Runs the op built without the plugin, built with it but with scheduling
# off, and built with it under the scheduler (BATON_SCHEDULE=best-effort)
# while an inference client interrupts it; every output must be bitwise
# identical, and the scheduled run must have been paused and resumed. With
# LAZY_DEMO (built with -baton-lazy), the same for it: its first scheduled
# run builds the variants into a fresh cache, its second finds them there.
# Exits 77 (skipped) where there is no GPU.
set -uo pipefail
demo=$1 plain=$2 work=$3 lazy=${4:-}
if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "SKIP: no NVIDIA GPU on this machine"
  exit 77
fi
mkdir -p "$work"
passed=0 failed=0
check() { # check NAME CONDITION-COMMAND...
  local name=$1; shift
  if "$@"; then echo "PASS: $name"; passed=$((passed + 1))
  else echo "FAIL: $name"; failed=$((failed + 1)); fi
}

"$plain" --out "$work/plain.bin" | tee "$work/plain.log"
env -u BATON_SCHEDULE "$demo" --out "$work/off.bin" | tee "$work/off.log"
BATON_SCHEDULE=best-effort BATON_VERBOSE=1 "$demo" --interfere \
  --out "$work/scheduled.bin" | tee "$work/scheduled.log"
BATON_SCHEDULE=best-effort "$demo" --out "$work/alone.bin" \
  | tee "$work/alone.log"

check "plugin build, scheduling off == plain build" \
  cmp -s "$work/plain.bin" "$work/off.bin"
check "scheduled with an inference client == plain build" \
  cmp -s "$work/plain.bin" "$work/scheduled.bin"
check "scheduled alone == plain build" cmp -s "$work/plain.bin" "$work/alone.bin"
check "scheduling off routed nothing" \
  grep -q "routed: 0 best-effort, 0 latency-critical" "$work/off.log"
resumes=$(sed -n 's/.* \([0-9]*\) resumes$/\1/p' "$work/scheduled.log")
check "the scheduler paused and resumed the op (${resumes:-0} resumes)" \
  test "${resumes:-0}" -gt 0
if [[ -n $lazy ]]; then
  export BATON_CACHE_DIR=$work/lazy-cache
  rm -rf "$BATON_CACHE_DIR"
  env -u BATON_SCHEDULE "$lazy" --out "$work/lazy-off.bin" | tee "$work/lazy-off.log"
  off_built=no
  [[ -e $BATON_CACHE_DIR ]] && off_built=yes  # before the runs that build
  BATON_SCHEDULE=best-effort "$lazy" --interfere --out "$work/lazy-first.bin" \
    2>&1 | tee "$work/lazy-first.log"
  BATON_SCHEDULE=best-effort BATON_VERBOSE=1 "$lazy" --interfere \
    --out "$work/lazy-second.bin" 2>&1 | tee "$work/lazy-second.log"
  check "lazy build, scheduling off == plain build" \
    cmp -s "$work/plain.bin" "$work/lazy-off.bin"
  check "lazy build, scheduling off built nothing" test $off_built = no
  check "lazy build: the first scheduled run built the variants" \
    grep -q "baton: variants of .* built in" "$work/lazy-first.log"
  check "lazy build: the second run found them in the cache" \
    grep -q "baton: variants of .* found in" "$work/lazy-second.log"
  check "lazy build, scheduled with an inference client == plain build" \
    cmp -s "$work/plain.bin" "$work/lazy-first.bin"
  check "lazy build, second scheduled run == plain build" \
    cmp -s "$work/plain.bin" "$work/lazy-second.bin"
  # The second run is verbose: it names each kernel that runs whole.
  check "lazy build: every kernel had variants" \
    bash -c '! grep -q "no variants" "$1" "$2"' _ "$work/lazy-first.log" \
    "$work/lazy-second.log"
  resumes=$(sed -n 's/.* \([0-9]*\) resumes$/\1/p' "$work/lazy-first.log")
  check "lazy build: the scheduler paused and resumed the op (${resumes:-0} resumes)" \
    test "${resumes:-0}" -gt 0
fi
echo "$passed passed, $failed failed"
((failed == 0))
