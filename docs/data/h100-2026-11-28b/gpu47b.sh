#!/usr/bin/env bash
# Forty-seventh session, call b: (1) the probe at grids just past one wave
# of workers (1,152 and 2,304 blocks of 256 threads against 1,056
# workers), two rounds; (2) the GPT step's variant overhead again, with
# BATON_TRACE=1, for the claim chunk and width the scheduler gave each
# routed launch of the short kernels.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/b; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
for r in 1 2; do
  TMPDIR=$L bash bench/ptb_anatomy/run.sh 294912 589824 1048576 > $L/probe$r.txt 2>&1; echo "probe $r rc=$?"
done
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
                  " ".join(f"{f} {ratios[f]}" for f in ("late", "first", "c4", "first-c4", "static", "static-slot", "slot-smemgrid")))
PY
TCFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include"
(cmake -S . -B build-torch $TCFG && cmake --build build-torch --target baton_python) > $L/build-torch.log 2>&1 || { tail -20 $L/build-torch.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
export PYTHONPATH=$R/build-torch/python BATON_CACHE_DIR=/tmp/bcache-a
left=$(( 570 - ($(date +%s)-t0) ))
BATON_TRACE=1 timeout $left python3 bench/torch/variant_overhead.py --train gpt --scale large > $L/vo-gpt.log 2> $L/vo-gpt.err; echo "vo gpt rc=$? $(( $(date +%s)-t0 ))s"
grep "baton-trace.*launch .*form" $L/vo-gpt.err > $L/launches.txt; gzip -f $L/vo-gpt.err
python3 - $L/launches.txt <<'PY'
import collections, re, sys
seen = collections.Counter()
for line in open(sys.argv[1]):
    m = re.search(r"launch \d+ '([^']+)' form (\d) width (\d+) chunk (\d+)", line)
    if m:
        seen[(m[1][:50], m[2], m[3], m[4])] += 1
for (name, form, width, chunk), n in sorted(seen.items()):
    if form != "0":
        print(f"{n:5} form {form} width {width:>6} chunk {chunk:>3}  {name}")
PY
sed -n '/training, large size/,$p' $L/vo-gpt.log | cut -c1-150 | tail -30
cd $OUT && tar czf b.tgz b && rm -rf b
