#!/usr/bin/env bash
# Forty-third session, call l: Rodinia's bpnn_layerforward_CUDA at its own
# block shape, 16 x 16 (backprop-16x16.txt): at the guessed 128 x 1 its
# tree reduction reads rows 8-15 of weight_matrix, which no thread wrote.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/l; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3)"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
rm -rf /tmp/bp && scripts/transform-tree.sh build-gpu/tools/baton-ptx/baton-ptx /tmp/bp wild-cu2/ptx | tail -1
for r in 1 2 3; do
  timeout 60 build-gpu/test/variants-gpu/variant_check /tmp/bp docs/data/h100-2026-11-27g/backprop-16x16.txt > $L/backprop-$r.log 2>&1
  echo "backprop at 16 x 16, round $r: rc=$? $(tail -1 $L/backprop-$r.log)"
done
grep -m5 '^FAIL' $L/backprop-1.log
cd $OUT && tar czf l.tgz l && rm -rf l
