#!/usr/bin/env bash
# The PTX command-line route: compile to PTX (or use the committed PTX when
# nvcc is absent), add Baton variants, and check the result with ptxas.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
baton_ptx=${1:?usage: run.sh PATH/TO/baton-ptx OUTDIR}
out=${2:?usage: run.sh PATH/TO/baton-ptx OUTDIR}
mkdir -p "$out"
ptx="$here/saxpy.ptx"
if command -v nvcc >/dev/null; then
  nvcc -ptx -arch=sm_90a -O3 "$here/saxpy.cu" -o "$out/saxpy.ptx"
  ptx="$out/saxpy.ptx"
fi
"$baton_ptx" "$ptx" -o "$out/saxpy.baton.ptx" --report "$out/saxpy.report.json"
/usr/local/cuda/bin/ptxas -arch=sm_90a "$out/saxpy.baton.ptx" -o "$out/saxpy.baton.cubin"
grep -o '\.entry [A-Za-z_0-9]*' "$out/saxpy.baton.ptx"
echo "examples/ptx-cli: variants assembled into $out/saxpy.baton.cubin"
