#!/usr/bin/env bash
# Forty-fourth session, call e: does the order of a worker's blocks matter?
# bench/ptb_anatomy with the new form static-runs (each worker a contiguous
# run of ceil(blocks / workers) blocks, as the first shares hand out) next
# to static (worker w runs w, w + W, ...), five rounds.
set -u
cd "$(dirname "$0")/../../.."
L=$OUT/e; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
for r in 1 2 3 4 5; do
  TMPDIR=$L bash bench/ptb_anatomy/run.sh > $L/round$r.txt 2>&1; echo "round $r rc=$?"
done
rm -f $L/baton_ptb_anatomy
python3 - $L/round*.txt <<'PY' | tee $L/summary.txt
import sys
forms = None
for path in sys.argv[1:]:
    for line in open(path):
        p = line.split()
        if p and p[0] == "elements":
            forms = p[3:]
        elif p and p[0].isdigit() and forms:
            ratios = dict(zip(forms, p[4::2]))
            print(path.rsplit("/", 1)[1], p[1], "blocks:",
                  " ".join(f"{f} {ratios[f]}" for f in ("late", "static", "static-runs", "first-c4")))
PY
cd $OUT && tar czf e.tgz e && rm -rf e
