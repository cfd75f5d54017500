#!/usr/bin/env bash
# Twenty-fourth session, call f: the 8-split MLP's time-storm child hangs;
# its whole trace, and the same child with 4 and 2 splits.
set -u
cd "$(dirname "$0")/.."
L=$OUT/f; mkdir -p $L
LIB=$PWD/build-scratch/coloc/libbaton_train_mlp.so
BATON_SCHEDULE=best-effort BATON_TRACE=1 timeout 25 python3 bench/colocation/check_train.py --child $LIB time 8 > $L/trace8.log 2>&1; echo "traced 8 rc=$?"
gzip $L/trace8.log
for s in 2 4; do
  BATON_SCHEDULE=best-effort timeout 30 python3 bench/colocation/check_train.py --child $LIB time $s > $L/child$s.log 2>&1; echo "child $s rc=$? $(tail -1 $L/child$s.log | cut -c1-150)"
done
BATON_SCHEDULE=best-effort BATON_LAUNCHES_AHEAD=1 timeout 30 python3 bench/colocation/check_train.py --child $LIB space 8 > $L/child8space.log 2>&1; echo "child 8 space rc=$? $(tail -1 $L/child8space.log | cut -c1-150)"
cd $OUT && tar czf f.tgz f && rm -rf f
