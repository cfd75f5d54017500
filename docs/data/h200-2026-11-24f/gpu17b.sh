#!/usr/bin/env bash
# Seventeenth session: per-kernel device time with kernel facts and resource usage.
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
L=$OUT/b; mkdir -p $L
cmake -S . -B build-torch -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) > $L/tbuild.log 2>&1 && cmake --build build-torch -j16 --target baton_python >> $L/tbuild.log 2>&1 || { tail -20 $L/tbuild.log; exit 1; }
export PYTHONPATH=$PWD/build-torch/python BATON_CACHE_DIR=$PWD/build-scratch/bcache
timeout 400 python3 build-scratch/ktime.py --scale large > $L/ktime.log 2>&1; echo "ktime rc=$? $(( $(date +%s)-t0 ))s"
sed -n '/^device time/,$p' $L/ktime.log | head -24
sed -n '/^routed kernels/,$p' $L/ktime.log
CUOBJ=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
for f in $(find build-scratch/bcache /tmp/torchinductor_* ~/.triton -name '*.cubin' 2>/dev/null); do echo "== $f"; $CUOBJ -res-usage $f 2>&1; done > $L/res.txt
for k in mm_t_6 mm_t_25 fused_mm_5 gelu_backward_mm_t_view_12; do grep -A1 "Function triton_tem_fused.*${k}" $L/res.txt | grep -v "^--" | sort -u | head -6; done
cd $OUT && tar czf b.tgz b && rm -rf b
