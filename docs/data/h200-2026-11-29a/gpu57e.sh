#!/usr/bin/env bash
# Fifty-seventh session, call e (an H200): what the plugin's PTB variants
# gained by losing their drain (f0dcb37). The 19 clang-plugin corpus kernels
# whose PTB variant drained before and does not now, the corpus's PTX before
# (drain/old: `git show f0dcb37~1:test/corpus/clang-plugin/F.ptx`) and after
# (drain/new: f0dcb37's), one variant_overhead build, rounds interleaved.
# The PTX travels untracked (not committed; regenerate it with git show).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; D=$R/docs/data/h200-2026-11-29a/drain; L=$OUT/e; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $L/gpu.txt
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3)"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu --target variant_overhead) > $L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
for r in 1 2 3; do
  for v in old new; do
    left=$(( 500 - ($(date +%s)-t0) )); [ $left -gt 60 ] || { echo "no time for $v round $r"; break 2; }
    timeout $left build-gpu/bench/variant_overhead $D/$v $D/manifest.txt > $L/$v$r.txt 2>&1
    echo "$v round $r rc=$? $(( $(date +%s)-t0 ))s"
  done
done
for f in $L/old1.txt $L/new1.txt; do echo "== $f"; grep -E 'module|clang-plugin|geomean|geometric' $f | cut -c1-150 | head -24; done
cd $OUT && tar czf e.tgz e && rm -rf e
