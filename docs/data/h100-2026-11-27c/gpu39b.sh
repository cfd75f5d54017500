#!/usr/bin/env bash
# Thirty-ninth session, call b: can a Triton template match cuBLAS on the
# large GPT's GEMMs on the H100? gemm_shapes.py per shape, ATen against the
# best Triton candidate, under Inductor's default search space, with the
# persistent TMA template, and with the exhaustive search space. Keeps the
# installed Inductor's config and GEMM template heuristics for reading.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/b; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
python3 - <<'PY'
import os, shutil, torch._inductor as ind
d = os.path.dirname(ind.__file__); out = os.path.join(os.environ["OUT"], "b")
for f in ("config.py", "kernel/mm.py", "kernel/mm_common.py", "template_heuristics/triton.py"):
    p = os.path.join(d, f)
    if os.path.exists(p):
        shutil.copy(p, os.path.join(out, f.replace("/", "_")))
PY
run() { # name limit args...
  local name=$1 limit=$2; shift 2
  local left=$(( 590 - ($(date +%s)-t0) )); [ $left -lt $limit ] && limit=$left
  [ $limit -gt 20 ] || { echo "$name: no time left"; return; }
  timeout $limit python3 bench/torch/gemm_shapes.py --json $L/$name.json "$@" > $L/$name.log 2>&1
  echo "== $name rc=$? $(( $(date +%s)-t0 ))s"; grep '^|' $L/$name.log
}
run default 150
run persistent-tma 150 --set triton.enable_persistent_tma_matmul=True
run exhaustive 400 --set max_autotune_gemm_search_space=EXHAUSTIVE
cd $OUT && tar czf b.tgz b && rm -rf b
