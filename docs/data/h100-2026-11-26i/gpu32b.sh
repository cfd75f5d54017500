#!/usr/bin/env bash
# Thirty-second session, call b: check_ops.py again after call a's fix of
# its own result flattening (call a's cases all stopped in it), on call a's
# machine (build-torch from call a).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/b; mkdir -p $L
t0=$(date +%s)
cmake --build build-torch -j 16 --target baton_python > $L/build.log 2>&1; echo "build rc=$? $(( $(date +%s)-t0 ))s"
export PYTHONPATH=$R/build-torch/python BATON_CACHE_DIR=$L/cache
timeout -s ABRT 560 python3 -X faulthandler bench/torch/check_ops.py --out $L --budget 480 --case-timeout 120 > $L/ops.log 2>&1; echo "ops rc=$? $(( $(date +%s)-t0 ))s"
sed -n '/==== check_ops summary/,$p' $L/ops.log | cut -c1-300
rm -rf $L/cache
gzip -f $L/*.log
cd $OUT && tar czf b.tgz b && rm -rf b
