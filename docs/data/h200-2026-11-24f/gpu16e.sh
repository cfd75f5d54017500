#!/usr/bin/env bash
# Sixteenth session: torch colocation with the stream pool. Usage:
#   gpu16e.sh TAG SYSTEMS
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
tag=$1 systems=$2
L=$OUT/$tag; mkdir -p $L
nvidia-smi -L > $L/gpu.txt
cmake -S . -B build-torch -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) > $L/tbuild.log 2>&1 && cmake --build build-torch -j16 --target baton_python >> $L/tbuild.log 2>&1 || { tail -20 $L/tbuild.log; exit 1; }
echo "torch build $(( $(date +%s)-t0 ))s"
export PYTHONPATH=$PWD/build-torch/python PYTHONFAULTHANDLER=1
left=$(( 585 - ($(date +%s)-t0) ))
(cd bench/torch && timeout $left python3 colocate_torch.py --out $L/bench --systems $systems --deadline $((left-20)) ${EXTRA:-} > $L/bench.log 2>&1); echo "bench rc=$? ($(( $(date +%s)-t0 ))s)"
sed -n '/==== torch colocation/,$p' $L/bench.log | head -40
grep -h "not run\|skipped\|did not\|Error" $L/bench.log | head -5
cd $OUT && tar czf $tag.tgz $tag; echo "total $(( $(date +%s)-t0 ))s"
