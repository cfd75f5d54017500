#!/usr/bin/env bash
# Fifty-sixth session (an H200): issue 6's torch pairs on main with the
# bypass gate on, its default since the fifty-fifth session (the fifty-second
# session's gpu52t.sh ran them with it off): torch.compile training (gpt or
# cnn, bench size) next to the compiled BERT-style encoder at 20/50/80% load,
# Baton in one process, with the references `settings` (training alone,
# Baton's Inductor settings, no Baton) and `alone` (inference alone).
# Usage: [DEADLINE=S] gpu56t.sh TAG gpt|cnn [SYSTEMS]
set -u
cd "$(dirname "$0")/../../.."
R=$PWD tag=$1 train=$2
systems=${3:-settings,alone,baton}
L=$OUT/$tag; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $L/gpu.txt
git log -1 --format='%h %s' | cut -c1-80 > $L/commit.txt
export BATON_CMAKE_ARGS="-DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include"
export PYTHONFAULTHANDLER=1
OUT=$L timeout 585 bench/torch/run.sh bench --train $train --systems $systems \
  --window 4 --deadline ${DEADLINE:-440} > $L/run.log 2>&1; echo "run.sh rc=$? $(( $(date +%s)-t0 ))s"
sed -n '/==== bench\/torch summary/,$p' $L/run.log | head -60
grep -h "skipped\|not run\|Error\|Traceback" $L/bench.log | head -5
gzip -f $L/bench/*.log 2>/dev/null
cd $OUT && tar czf $tag.tgz $tag && rm -rf $tag
