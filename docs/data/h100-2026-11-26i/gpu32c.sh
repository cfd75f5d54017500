#!/usr/bin/env bash
# Thirty-second session, call c: bench/torch/run.sh check as committed
# (check_training.py with a per-model stack-dump watchdog, check_graphs.py,
# check_ops.py), on call a's machine.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/c; mkdir -p $L
t0=$(date +%s)
BATON_CMAKE_ARGS="-DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DCLI11_INCLUDE_DIR=$R/.deps" \
  BATON_CACHE_DIR=$L/cache OUT=$L timeout 590 bench/torch/run.sh check > $L/run.log 2>&1; echo "run.sh rc=$? $(( $(date +%s)-t0 ))s"
sed -n '/==== bench\/torch summary/,$p' $L/run.log | cut -c1-260
rm -rf $L/cache
gzip -f $L/*.log
cd $OUT && tar czf c.tgz c && rm -rf c
