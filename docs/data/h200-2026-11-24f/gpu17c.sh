#!/usr/bin/env bash
# Seventeenth session: launch widths (BATON_TRACE) and SASS of slow PTB variants.
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
L=$OUT/c; mkdir -p $L
cmake -S . -B build-torch -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) > $L/tbuild.log 2>&1 && cmake --build build-torch -j16 --target baton_python >> $L/tbuild.log 2>&1 || { tail -20 $L/tbuild.log; exit 1; }
export PYTHONPATH=$PWD/build-torch/python BATON_CACHE_DIR=$PWD/build-scratch/bcache
BATON_TRACE=1 timeout 400 python3 build-scratch/ktime.py --scale large --steps 3 > $L/ktime.log 2> $L/trace.log; echo "ktime rc=$? $(( $(date +%s)-t0 ))s"
sed -n '/^device time/,$p' $L/ktime.log | head -12
for k in mm_t_6 log_softmax_backward_data mm_5 mm_native_layer_norm_view_22; do grep "launch .*$k" $L/trace.log | awk '{$1="";print}' | sed 's/launch [0-9]*//' | sort | uniq -c | sort -rn | head -3; done
grep -c . $L/trace.log
CUOBJ=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
mkdir -p $L/sass
for f in $(find build-scratch/bcache -name '*.cubin'); do
  if $CUOBJ -res-usage $f 2>/dev/null | grep -qE "mm_t_6__baton_ptb|log_softmax_backward_data.*__baton_ptb|fused_mm_5__baton_ptb"; then $CUOBJ -sass $f > $L/sass/$(basename $f).sass 2>&1; fi
done
ls $L/sass | head; gzip $L/trace.log
cd $OUT && tar czf c.tgz c && rm -rf c
