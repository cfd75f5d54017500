#!/usr/bin/env bash
# Fifty-third session, call e (an H200): call d's CNN pair with the bypass
# gate on, which call d's budget left out (the cold compile took it).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/e; mkdir -p $L; t0=$(date +%s)
export BATON_CMAKE_ARGS="-DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include"
OUT=$L/on timeout 255 bench/torch/run.sh bench --train cnn --systems settings,alone,baton \
  --loads 0.5 --window 4 --deadline 235 > $L/run-on.log 2>&1; echo "gate on rc=$? $(( $(date +%s)-t0 ))s"
sed -n '/==== torch colocation/,$p' $L/run-on.log | grep -E "alone|baton" | head -8
gzip -f $L/*/bench/*.log 2>/dev/null
cd $OUT && tar czf e.tgz e && rm -rf e
