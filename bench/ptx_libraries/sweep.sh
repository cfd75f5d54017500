#!/usr/bin/env bash
# Runs baton-ptx over every PTX module embedded in kernel libraries and
# reports, per library, how many kernels got which variants and why the others
# were refused; then assembles a random sample of the results with ptxas (the
# module's own .target; `-c` where it has .extern symbols; PTX newer than
# this ptxas with its .version lowered to 9.0 in both input and output).
#
#   bench/ptx_libraries/sweep.sh BUILD_DIR WORK_DIR SAMPLE LIB...
#
# e.g. sweep.sh build /tmp/sweep 200 /usr/local/cuda/lib64/lib{cublas,cusparse}.so
# A module whose output ptxas rejects while it accepts the input is printed
# as OUTPUT-ONLY-FAIL: a transform bug.
set -euo pipefail
build=${1:?usage: sweep.sh BUILD_DIR WORK_DIR SAMPLE LIB...}
work=${2:?} sample=${3:?}
shift 3
here=$(cd "$(dirname "$0")" && pwd)
ptxas=${PTXAS:-/usr/local/cuda/bin/ptxas}
mkdir -p "$work/in" "$work/out"
for lib in "$@"; do
  stem=$(basename "$lib" .so)
  mkdir -p "$work/in/$stem"
  "$build/tools/baton-extract/baton-extract" "$lib" -o "$work/in/$stem" | tail -1
done
find "$work/in" -name '*.ptx' | sort > "$work/modules.txt"
# WORK/out/LIBRARY__MODULE.ptx for the extracted WORK/in/LIBRARY/MODULE.ptx.
output() { echo "$2/out/$(basename "$(dirname "$1")")__$(basename "$1")"; }
transform() {
  local f=$1 o
  o=$(output "$1" "$2")
  "$3" -q "$f" -o "$o" --report "$o.json" || echo "baton-ptx failed ($?): $f"
}
export -f output transform
start=$(date +%s)
xargs -P "$(nproc)" -I{} bash -c 'transform "$@"' _ {} "$work" \
  "$build/tools/baton-ptx/baton-ptx" < "$work/modules.txt"
echo "transformed $(wc -l < "$work/modules.txt") modules in $(( $(date +%s) - start )) s"
python3 "$here/summarize.py" "$work/out"
check() {
  local f=$1 o t arch flags=()
  o=$(output "$1" "$2")
  arch=$(grep -m1 -o '^\.target sm_[0-9]*[af]*' "$f" | cut -d' ' -f2)
  t=$(mktemp -d)
  cp "$f" "$t/in.ptx"; cp "$o" "$t/out.ptx"
  sed -i 's/^\.version 9\.[1-9]$/.version 9.0/' "$t/in.ptx" "$t/out.ptx"
  grep -q '^\.extern' "$t/in.ptx" && flags=(-c)
  if "$3" -arch="$arch" "${flags[@]}" "$t/out.ptx" -o /dev/null 2>/dev/null; then
    echo ok
  elif "$3" -arch="$arch" "${flags[@]}" "$t/in.ptx" -o /dev/null 2>/dev/null; then
    echo "OUTPUT-ONLY-FAIL $f"
  else
    echo "input rejected too"
  fi
  rm -rf "$t"
}
export -f check
shuf -n "$sample" --random-source=<(yes) "$work/modules.txt" |
  xargs -P "$(nproc)" -I{} bash -c 'check "$@"' _ {} "$work" "$ptxas" |
  sort | uniq -c
