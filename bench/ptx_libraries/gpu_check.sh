#!/usr/bin/env bash
# The variants of PTX collected from elsewhere, against the originals, on the
# GPU: baton-ptx transforms every module under ROOT, guess_launches.py
# guesses a launch for each kernel, and variant_check runs each guess in a
# process of its own (a fault or a hang ends only that kernel's check).
#
#   bench/ptx_libraries/gpu_check.sh BUILD_DIR WORK_DIR ROOT [SECONDS]
#
# Prints one line per kernel and a tally: passed; FAILED (a variant differs
# from the original: a transform bug); not reproducible (the original's two
# runs differ under the guessed launch); original faulted or hung (the guess
# does not fit the kernel); input does not load either (the driver's JIT
# rejects the module as it came); other (killed by the time limit); unreadable
# (baton-ptx rejected the module: ptxas rejects it too, see sweep.sh). The
# vacate-storm expectation of variant_check, meant for a whole manifest, is
# not counted per kernel.
set -uo pipefail
build=${1:?usage: gpu_check.sh BUILD_DIR WORK_DIR ROOT [SECONDS]}
work=${2:?} root=${3:?} limit=${4:-60}
here=$(cd "$(dirname "$0")" && pwd)
check=$build/test/variants-gpu/variant_check
mkdir -p "$work/lines" "$work/logs"
rm -rf "$work/xformed"
"$here/../../scripts/transform-tree.sh" "$build/tools/baton-ptx/baton-ptx" \
  "$work/xformed" "$root" | tail -1
python3 "$here/guess_launches.py" "$root" > "$work/manifest.txt" \
  2> "$work/no-guess.txt"
echo "$(wc -l < "$work/manifest.txt") launches guessed," \
  "$(wc -l < "$work/no-guess.txt") kernels without a guess"
declare -A tally
n=0
while IFS= read -r line; do
  n=$((n + 1))
  if [[ ! -f $work/xformed/${line%% *} ]]; then
    tally[unreadable]=$(( ${tally[unreadable]:-0} + 1 ))
    echo "unreadable (baton-ptx)     $(cut -d' ' -f1,2 <<< "$line")"
    continue
  fi
  echo "$line" > "$work/lines/$n.txt"
  timeout -k 5 "$limit" "$check" "$work/xformed" "$work/lines/$n.txt" \
    < /dev/null > "$work/logs/$n.log" 2>&1
  status=$?
  if ((status == 77)); then
    cat "$work/logs/$n.log"
    exit 77
  fi
  real=$(grep '^FAIL ' "$work/logs/$n.log" | grep -v 'vacate storms')
  if ((status == 124 || status == 137)); then
    verdict=other # killed by the timeout: an original or a variant
  elif [[ -z $real ]] && ((status <= 1)); then
    verdict=passed
  elif grep -q 'original twice' <<< "$real"; then
    verdict="not reproducible"
  elif grep -q 'cuModuleLoadData' <<< "$real"; then
    # The transformed module does not load: does the input?
    timeout -k 5 "$limit" "$check" "$root" "$work/lines/$n.txt" \
      < /dev/null > "$work/logs/$n.input.log" 2>&1
    verdict=FAILED
    grep -q '^FAIL .*cuModuleLoadData' "$work/logs/$n.input.log" &&
      verdict="input does not load either"
  elif grep -q ': original: ' <<< "$real"; then
    verdict="original faulted or hung"
  else
    verdict=FAILED
  fi
  tally[$verdict]=$(( ${tally[$verdict]:-0} + 1 ))
  printf '%-26s %s\n' "$verdict" "$(cut -d' ' -f1,2 <<< "$line")"
  if [[ $verdict == FAILED || $verdict == other ]]; then
    grep -m3 '^FAIL ' "$work/logs/$n.log" | sed 's/^/    /'
    echo "    log: $work/logs/$n.log"
  fi
done < "$work/manifest.txt"
echo "== $n kernels"
for v in passed FAILED "not reproducible" "original faulted or hung" \
         "input does not load either" other unreadable; do
  printf '%6d %s\n' "${tally[$v]:-0}" "$v"
done
