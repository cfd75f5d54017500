#!/usr/bin/env bash
# Forty-first session, call h: Triton's corpus kernels compiled for sm_80
# again, now with a manifest (the H100 JIT-compiles sm_80 PTX), and their
# variants checked against the originals on the GPU: corpus_check (slices
# and PTB, with pauses) and variant_check.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/h; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
G=$L/gen; mkdir -p $G
timeout 150 python3 scripts/gen-triton-corpus.py $G --arch sm80 > $L/gen.log 2>&1; echo "gen rc=$? $(( $(date +%s)-t0 ))s"
grep -c "^ok" $L/gen.log; grep -v "^ok" $L/gen.log | head -5
python3 test/corpus/check-manifest.py $G $G/triton-sm80-manifest.txt 2>&1 | tail -3
for f in $G/triton-sm80/*.ptx; do cmp -s $f test/corpus/triton-sm80/$(basename $f) || echo "differs from call g: $(basename $f)"; done
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3)"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu --target baton-ptx corpus_check variant_check) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
X=$L/x; scripts/transform-tree.sh build-gpu/tools/baton-ptx/baton-ptx $X $G > $L/transform.log 2>&1; echo "transform rc=$?"
timeout 200 build-gpu/test/gpu/corpus_check $G/triton-sm80-manifest.txt $X > $L/corpus_check.log 2>&1; echo "corpus_check rc=$? $(( $(date +%s)-t0 ))s"; tail -3 $L/corpus_check.log
timeout 150 build-gpu/test/variants-gpu/variant_check $X $G/triton-sm80-manifest.txt > $L/variant_check.log 2>&1; echo "variant_check rc=$? $(( $(date +%s)-t0 ))s"; grep -v "^ok" $L/variant_check.log | tail -5
rm -rf $X
cd $OUT && tar czf h.tgz h && rm -rf h
