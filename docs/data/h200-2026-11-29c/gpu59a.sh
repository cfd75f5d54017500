#!/usr/bin/env bash
# Fifty-ninth session, call a (an H200): the GPU tests on the tree with the
# count-down grid barrier refused, then bench/ptb_anatomy (with the new
# `static-free` form: no barrier between a worker's blocks) three rounds at
# 1,024, 4,096 and 16,384 blocks. Carries .deps and build/bench/colocation.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/a; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $L/gpu.txt
git log -1 --format=%h > $L/commit.txt 2>/dev/null
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3)"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu) > $L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
timeout 240 ctest --test-dir build-gpu -R 'gpu\.|variants_gpu|Scheduler|ClaimsOf|python' -E 'gpu\.preload|gpu\.torch' --output-on-failure -V > $L/ctest.log 2>&1; echo "ctest rc=$? $(( $(date +%s)-t0 ))s"
grep -E "tests passed|Failed|\*\*\*Timeout|Not Run" $L/ctest.log | head -12
grep -E "[0-9]+ passed, [0-9]+ failed|Ran [0-9]+ tests|^OK|FAILED \(" $L/ctest.log | head -14
gzip -f $L/ctest.log
nvcc -arch=sm_90 -O3 -Iinclude bench/ptb_anatomy/ptb_anatomy.cu -o $L/ptb_anatomy > $L/probe-build.log 2>&1 || { cat $L/probe-build.log; exit 1; }
for round in 1 2 3; do
  timeout 120 $L/ptb_anatomy 262144 1048576 4194304 > $L/anatomy-$round.txt 2>&1
  echo "round $round rc=$? $(( $(date +%s)-t0 ))s"
done
rm -f $L/ptb_anatomy
python3 - $L <<'PY'
import sys, glob
# The ratio columns of static, static-free, static-slot, slot-early-smem, late.
want = ["static", "static-free", "static-slot", "slot-early-smem", "late"]
for path in sorted(glob.glob(sys.argv[1] + "/anatomy-*.txt")):
    lines = open(path).read().splitlines()
    head = next(l for l in lines if l.lstrip().startswith("elements"))
    names = head.split()[3:]
    for l in lines:
        f = l.split()
        if len(f) < 4 or not f[0].isdigit():
            continue
        ratios = {n: f[3 + 2 * i + 1].rstrip("!") for i, n in enumerate(names)}
        print(path.rsplit("/", 1)[1], f[1], "orig", f[2], " ".join(f"{n}={ratios[n]}" for n in want))
PY
cd $OUT && tar czf a.tgz a && rm -rf a
