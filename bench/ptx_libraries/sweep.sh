#!/usr/bin/env bash
# Runs baton-ptx over every PTX module embedded in kernel libraries (or kept
# as .ptx files in a directory tree) and reports, per library or directory,
# how many kernels got which variants and why the others were refused; then
# assembles a random sample of the results with ptxas (the module's own
# .target, sm_75 for older ones; `-c` where it has .extern symbols; PTX newer
# than this ptxas with its .version lowered to 9.0 in both input and output).
#
#   bench/ptx_libraries/sweep.sh BUILD_DIR WORK_DIR SAMPLE LIB_OR_DIR...
#
# e.g. sweep.sh build /tmp/sweep 200 /usr/local/cuda/lib64/lib{cublas,cusparse}.so
#      sweep.sh build /tmp/wild all /tmp/ptx-from-elsewhere/*/
# SAMPLE `all` assembles every module. A directory's modules keep their path
# below it, with `/` spelled `__`, so that equal file names do not collide.
# A module whose output ptxas rejects while it accepts the input is printed
# as OUTPUT-ONLY-FAIL, one that baton-ptx could not transform (no output)
# while ptxas accepts it as TRANSFORM-FAILED: both are bugs.
set -euo pipefail
build=${1:?usage: sweep.sh BUILD_DIR WORK_DIR SAMPLE LIB_OR_DIR...}
work=${2:?} sample=${3:?}
shift 3
here=$(cd "$(dirname "$0")" && pwd)
ptxas=${PTXAS:-/usr/local/cuda/bin/ptxas}
mkdir -p "$work/in" "$work/out"
for lib in "$@"; do
  stem=$(basename "$lib" .so)
  mkdir -p "$work/in/$stem"
  if [[ -d $lib ]]; then
    (cd "$lib" && find . -name '*.ptx' -type f) | while IFS= read -r f; do
      f=${f#./}
      cp "$lib/$f" "$work/in/$stem/${f//\//__}"
    done
    echo "$stem: $(ls "$work/in/$stem" | wc -l) modules"
  else
    "$build/tools/baton-extract/baton-extract" "$lib" -o "$work/in/$stem" | tail -1
  fi
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
  arch=$(grep -m1 -o '^\s*\.target\s\+sm_[0-9]*[af]*' "$f" | grep -o 'sm_.*')
  # CUDA 13's ptxas knows no target below sm_75; older modules run there too.
  [[ ${arch:-sm_0} =~ ^sm_([0-9]+) ]] && ((BASH_REMATCH[1] < 75)) && arch=sm_75
  if [[ ! -s $o ]]; then # baton-ptx refused the module (a parse error)
    if "$3" -arch="$arch" "$f" -o /dev/null 2>/dev/null; then
      echo "TRANSFORM-FAILED $f"
    else
      echo "transform failed, input rejected too"
    fi
    return
  fi
  t=$(mktemp -d)
  cp "$f" "$t/in.ptx"; cp "$o" "$t/out.ptx"
  sed -i 's/^\s*\.version 9\.[1-9]\s*$/.version 9.0/' "$t/in.ptx" "$t/out.ptx"
  # -c for modules that leave symbols to a link (not for extern shared).
  grep -q '^\s*\.extern\s\+\.\(func\|global\|const\)' "$t/in.ptx" && flags=(-c)
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
[[ $sample == all ]] && sample=$(wc -l < "$work/modules.txt")
shuf -n "$sample" --random-source=<(yes) "$work/modules.txt" |
  xargs -P "$(nproc)" -I{} bash -c 'check "$@"' _ {} "$work" "$ptxas" |
  sort | uniq -c
