#!/usr/bin/env bash
# Thirtieth session, call b. Call a hung in variant_check: the lock kernel
# relied on smoke-run's poison byte; it now takes a `zero` buffer. As call
# a: the Triton corpus grows by eleven kernels
# (attention forward and backward, persistent TMA and warp-specialised
# matmuls, FP8, Philox dropout, a spin-locked group sum, sort/scan/gather,
# f64 on a 3-D grid, and a two-CTA cluster matmul that must be refused).
# Triton compiles them here (scripts/gen-triton-corpus.py), then: the
# manifest check, the smoke run (launchable, deterministic), baton-ptx and
# ptxas over the whole corpus, and the GPU tests, whose corpus_check and
# variant_check run every Triton line's variants against the original.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/b; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
python3 -c "import triton, torch; print('triton', triton.__version__, 'torch', torch.__version__)" | tee -a $L/gpu.txt
cp -r test/corpus/triton $L/triton-before
python3 scripts/gen-triton-corpus.py test/corpus > $L/gen.log 2>&1; echo "gen rc=$? $(( $(date +%s)-t0 ))s"
grep -v '^ok' $L/gen.log | grep -v -i warn | head -20
for f in $L/triton-before/*.ptx; do cmp -s $f test/corpus/triton/$(basename $f) || echo "changed: $(basename $f)"; done
python3 test/corpus/check-manifest.py test/corpus test/corpus/triton-manifest.txt > $L/check-manifest.log 2>&1; echo "check-manifest rc=$?"; tail -3 $L/check-manifest.log
timeout 300 python3 test/corpus/smoke-run.py test/corpus/triton-manifest.txt > $L/smoke.log 2>&1; echo "smoke rc=$?"; tail -30 $L/smoke.log
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
python3 test/corpus/check_corpus.py build-gpu/tools/baton-ptx/baton-ptx /usr/local/cuda/bin/ptxas test/corpus $L/cc > $L/check_corpus.log 2>&1; echo "check_corpus rc=$?"; grep -E 'triton/|modules:|both variants|FAIL' $L/check_corpus.log | head -40
rm -rf $L/cc
timeout 420 ctest --test-dir build-gpu -R 'gpu\.|variants_gpu' --output-on-failure > $L/ctest.log 2>&1; echo "ctest rc=$? $(( $(date +%s)-t0 ))s"
grep -E "tests passed|Failed|\*\*\*|Timeout" $L/ctest.log | head
cp build-gpu/Testing/Temporary/LastTest.log $L/ctest-full.log
grep -E "(attention|matmul_tma_p|matmul_tma_w|fp8|dropout|locked|sort_scan|fp64_lib)" $L/ctest-full.log | head -60
grep -E "passed, [0-9]+ failed|[0-9]+ passed" $L/ctest-full.log | head -20
gzip -f $L/ctest-full.log
# What the variants cost these kernels when never preempted (corpus sizes:
# 20-800 us launches, so fixed costs weigh).
timeout 150 build-gpu/bench/runtime/variant_overhead_runtime test/corpus/triton-manifest.txt build-gpu/test/gpu/xformed/corpus 5 > $L/vo.log 2>&1; echo "variant_overhead rc=$?"; tail -30 $L/vo.log
mkdir -p $L/corpus && cp -r test/corpus/triton test/corpus/triton-manifest.txt $L/corpus/
rm -rf $L/triton-before
cd $OUT && tar czf b.tgz b && rm -rf b
