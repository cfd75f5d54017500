#!/usr/bin/env bash
# Forty-seventh session, call c: first shares for PTB launches issued
# paused (shares.patch: the launch router's launches queued ahead). The
# GPT step's variant overhead, site by site, with the change and without
# it (the tree with shares.patch reversed), in one call.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/c; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
mkdir -p /tmp/old && cp -r $(ls -A | grep -v -E '^(build.*|docs|\.git)$') /tmp/old/ && cp -r docs /tmp/old/ 2>/dev/null
(cd /tmp/old && patch -s -R -p1 < $R/docs/data/h100-2026-11-28b/shares.patch) || { echo "patch failed"; exit 1; }
TCFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include"
for t in $R /tmp/old; do
  (cmake -S $t -B $t/build-torch $TCFG && cmake --build $t/build-torch --target baton_python) > $L/build-$(basename $t).log 2>&1 || { tail -20 $L/build-$(basename $t).log; exit 1; }
done
echo "built $(( $(date +%s)-t0 ))s"
export BATON_CACHE_DIR=/tmp/bcache-c
for t in new old; do
  [ $t = new ] && P=$R/build-torch/python || P=/tmp/old/build-torch/python
  left=$(( 580 - ($(date +%s)-t0) )); [ $left -gt 60 ] || break
  PYTHONPATH=$P timeout $left python3 bench/torch/variant_overhead.py --train gpt --scale large > $L/vo-gpt-$t.log 2>&1; echo "vo $t rc=$? $(( $(date +%s)-t0 ))s"
  grep -E 'geometric|_sum_7#0|_to_copy_9#|cat_transpose_view_19|gelu_backward_sum_view_13#0|fused_mm_16#0|log_softmax' $L/vo-gpt-$t.log | cut -c1-150
done
cd $OUT && tar czf c.tgz c && rm -rf c
