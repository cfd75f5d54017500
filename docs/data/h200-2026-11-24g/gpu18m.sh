#!/usr/bin/env bash
# Eighteenth session: can "ptb, repeated shapes" fail? Two mutants: no report reset (A), vacate not marking the task touched (B).
set -u
cd "$(dirname "$0")/.."
cfg="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$PWD/.deps"
for m in mutA mutB; do
  (cmake -S build-scratch/$m -B build-$m $cfg > /dev/null 2>&1 && cmake --build build-$m -j16 --target exactly_once baton-ptx > $OUT/$m-build.log 2>&1) || { tail -5 $OUT/$m-build.log; continue; }
  build-$m/tools/baton-ptx/baton-ptx test/gpu/kernels/record.ptx -o /tmp/record-$m.ptx
  timeout 250 build-$m/test/gpu/exactly_once /tmp/record-$m.ptx > $OUT/$m.log 2>&1; echo "$m rc=$?"
  grep -E "repeated|FAIL|violation|passed|failed" $OUT/$m.log | head -5
done
