#!/usr/bin/env bash
# Transforms every module of the corpus and of the GPU test kernels with
# baton-ptx into OUTDIR, keeping their relative paths (corpus/nvcc/x.ptx ->
# OUTDIR/nvcc/x.ptx, test/variants-gpu/kernels/y.ptx -> OUTDIR/kernels/y.ptx), as the
# GPU manifests expect.
set -euo pipefail
baton_ptx=${1:?usage: transform-tree.sh BATON_PTX OUTDIR}
out=${2:?usage: transform-tree.sh BATON_PTX OUTDIR}
root=$(cd "$(dirname "$0")/.." && pwd)
n=0
while IFS= read -r -d '' f; do
  rel=${f#"$root/test/corpus/"}
  rel=${rel#"$root/test/variants-gpu/"}
  mkdir -p "$out/$(dirname "$rel")"
  "$baton_ptx" -q "$f" -o "$out/$rel"
  n=$((n + 1))
done < <(find "$root/test/corpus" "$root/test/variants-gpu/kernels" -name '*.ptx' -print0)
echo "transformed $n modules into $out"
