#!/usr/bin/env bash
# Forty-sixth session, call b: the probe's hand-out of a share with the
# grid kept in a register (slot-reggrid) and without a decode
# (slot-nodecode), next to static and static-slot, three rounds; the SASS
# of the probe's kernels.
set -u
cd "$(dirname "$0")/../../.."
L=$OUT/b; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
for r in 1 2 3; do
  TMPDIR=$L bash bench/ptb_anatomy/run.sh > $L/probe$r.txt 2>&1; echo "probe $r rc=$?"
done
cuobjdump -sass $L/baton_ptb_anatomy > $L/probe.sass 2>&1
rm -f $L/baton_ptb_anatomy
python3 - $L/probe*.txt <<'PY' | tee $L/probe-summary.txt
import sys
forms = None
for path in sys.argv[1:]:
    for line in open(path):
        p = line.split()
        if p and p[0] == "elements":
            forms = p[3:]
        elif p and p[0].isdigit() and forms:
            ratios = dict(zip(forms, p[4::2]))
            print(path.rsplit("/", 1)[1], p[1], "blocks: orig", p[2], "us",
                  " ".join(f"{f} {ratios[f]}" for f in ("static", "static-slot", "slot-reggrid", "slot-nodecode", "slot-early-1load")))
PY
cd $OUT && tar czf b.tgz b && rm -rf b
