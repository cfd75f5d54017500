#!/usr/bin/env bash
# Thirty-ninth session, call a: what the GEMM choice costs training alone
# against PyTorch's defaults (issue 6), first round: each mode compiles
# and autotunes here (a fresh machine), and the free mode's autotuning
# records ATen's and Triton's time for every GEMM of the large GPT step.
# Also keeps the installed Inductor's select_algorithm.py for reading.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/a; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
python3 - <<'PY' > $L/versions.txt 2>&1
import torch, triton, torch._inductor.select_algorithm as sa, shutil, os
print(torch.__version__, triton.__version__, sa.__file__)
shutil.copy(sa.__file__, os.path.join(os.environ["OUT"], "a", "select_algorithm.py"))
PY
cat $L/versions.txt
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3)"
(cmake -S . -B build-torch $CFG -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF && cmake --build build-torch --target baton_python) > $L/build-torch.log 2>&1 || { tail -20 $L/build-torch.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
export PYTHONPATH=$R/build-torch/python BATON_CACHE_DIR=/tmp/bcache-39
timeout $(( 590 - ($(date +%s)-t0) )) python3 bench/torch/gemm_choice.py --out $L/gemm --train gpt --scale large \
  --modes defaults,free,baton --rounds 1 --seconds 3 --windows 3 2>&1 | tee $L/gemm.log | tail -12
echo "done $(( $(date +%s)-t0 ))s"
cd $OUT && tar czf a.tgz a && rm -rf a
