#!/usr/bin/env bash
# usage: transform-tree.sh BATON_PTX OUTDIR SRCDIR...
# Runs baton-ptx on every .ptx under each SRCDIR and writes the result to the
# same path relative to that SRCDIR under OUTDIR (what the GPU tests and
# benchmarks load). Refusals are expected (the module keeps the original
# kernel); a baton-ptx failure (unreadable input, crash) is an error.
# BATON_FIT_REGISTERS=sm_90 (say) passes --fit-registers sm_90 to each run.
set -euo pipefail
baton_ptx=${1:?usage: transform-tree.sh BATON_PTX OUTDIR SRCDIR...}
out=${2:?usage: transform-tree.sh BATON_PTX OUTDIR SRCDIR...}
shift 2
fit=()
[[ -n ${BATON_FIT_REGISTERS:-} ]] && fit=(--fit-registers "$BATON_FIT_REGISTERS")
status=0 n=0
for src in "$@"; do
  src=$(cd "$src" && pwd)
  while IFS= read -r -d '' f; do
    rel=${f#"$src/"}
    mkdir -p "$out/$(dirname "$rel")"
    if ! "$baton_ptx" -q "${fit[@]}" "$f" -o "$out/$rel"; then
      echo "transform-tree: baton-ptx failed on $f" >&2
      status=1
    fi
    n=$((n + 1))
  done < <(find "$src" -name '*.ptx' -print0)
done
echo "transform-tree: $n modules into $out"
exit $status
