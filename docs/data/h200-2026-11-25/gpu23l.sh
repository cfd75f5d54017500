#!/usr/bin/env bash
# Twenty-third session, call l: bench/share/run.sh with its new handover
# check (registry against none, LC p99 under half).
set -u
cd "$(dirname "$0")/.."
mkdir -p $OUT/l
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
LC_SECONDS=3 OUT=$OUT/l bash bench/share/run.sh > $OUT/l/share-run.log 2>&1; echo "run.sh rc=$?"
sed -n '/share summary/,$p' $OUT/l/share-run.log
cd $OUT && rm -rf l/share/mps-pipe && gzip l/share-run.log && tar czf l.tgz l && rm -rf l
