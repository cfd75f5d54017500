#!/usr/bin/env bash
# Thirty-first session, call a: what baton.torch does under CUDA graph
# capture today (bench/torch/check_graphs.py: Inductor's graph trees for
# best-effort training and for a latency-critical thread, and a manual
# torch.cuda.graph capture while routed work is in flight), and the smoke
# run of the CUDA manifest with the new control.cu kernels.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/a; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
t0=$(date +%s)
timeout 200 python3 test/corpus/smoke-run.py test/corpus/manifest.txt > $L/smoke.log 2>&1; echo "smoke rc=$? $(( $(date +%s)-t0 ))s"
grep -E 'control|problem' $L/smoke.log | head -20
python=$(command -v python3)
(cmake -S . -B build-torch -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF \
   -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$python \
   -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DCLI11_INCLUDE_DIR=$R/.deps &&
 cmake --build build-torch --target baton_python) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
export PYTHONPATH=$R/build-torch/python BATON_CACHE_DIR=$L/cache
timeout 500 python3 bench/torch/check_graphs.py --out $L --timeout 150 > $L/graphs.log 2>&1; echo "graphs rc=$? $(( $(date +%s)-t0 ))s"
grep -v "^\s*$" $L/graphs.log | grep -iE "error|Error|PASS|FAIL|captur|baton:" | head -40
rm -rf $L/cache
cd $OUT && tar czf a.tgz a && rm -rf a
