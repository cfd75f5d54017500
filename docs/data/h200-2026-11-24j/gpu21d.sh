#!/usr/bin/env bash
# Twenty-first session: bench/share/run.sh with the MPS terminate_client kill.
set -u
cd "$(dirname "$0")/.."
git log --oneline -1 > $OUT/commit.txt; git diff --stat > $OUT/diffstat.txt
LC_SECONDS=3 timeout 585 bench/share/run.sh > $OUT/share-run.log 2>&1; echo "run.sh rc=$?"
sed -n '/share summary/,$p' $OUT/share-run.log
