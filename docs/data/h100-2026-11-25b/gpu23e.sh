#!/usr/bin/env bash
# Twenty-third session, call e: bench/share/run.sh and the interposer pair
# (bench/preload/run.sh, MPS=0) on main with the plain finalize for shared BE.
set -u
cd "$(dirname "$0")/.."
mkdir -p $OUT/e
git_head=$(cat build-scratch/head.txt); echo "main at $git_head"
t0=$(date +%s)
LC_SECONDS=5 OUT=$OUT/e bash bench/share/run.sh > $OUT/e/share-run.log 2>&1; echo "share run.sh rc=$? after $(( $(date +%s)-t0 )) s"
sed -n '/share summary/,$p' $OUT/e/share-run.log
t1=$(date +%s)
MPS=0 STEPS=150 REPS=3 PAIR_SECONDS=5 OUT=$OUT/e timeout 420 bash bench/preload/run.sh > $OUT/e/preload-run.log 2>&1; echo "preload run.sh rc=$? after $(( $(date +%s)-t1 )) s"
sed -n '/launch interposer/,$p' $OUT/e/preload-run.log | tail -30
cd $OUT && gzip -f e/share-run.log && tar czf e.tgz e && rm -rf e
