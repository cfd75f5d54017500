#!/usr/bin/env bash
# Thirty-first session, call e: check_graphs.py's lc-trees scenario, which
# gave no result within 240 s in call d, with a stack dump of every thread
# before the limit.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/e; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
t0=$(date +%s)
export PYTHONPATH=$R/build-torch/python BATON_CACHE_DIR=$L/cache
cmake --build build-torch --target baton_python > $L/build.log 2>&1 || { tail $L/build.log; exit 1; }
timeout 300 python3 bench/torch/check_graphs.py --scenarios lc-trees --out $L --timeout 200 > $L/lc.log 2>&1; echo "rc=$? $(( $(date +%s)-t0 ))s"
grep -vE "^E1126|triton_mm_|strides|dtypes|Autotune Choices|AUTOTUNE|TypedStorage|storage\(\)" $L/lc.log | cut -c1-220 | tail -80
rm -rf $L/cache
cd $OUT && tar czf e.tgz e && rm -rf e
