#!/usr/bin/env bash
# Forty-second session, call h: call e's MLP step with the PTB variants'
# guided claim divisor edited by hand (claimdiv/edit_divisor.py, timing
# only): remaining / (2 x workers) as generated (div2), / workers (div1),
# / (workers / 2) (divhalf). Two rounds, the three interleaved.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/h; mkdir -p $L; D=docs/data/h100-2026-11-27f
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
CFG="-G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3)"
(cmake -S . -B build-gpu $CFG && cmake --build build-gpu --target variant_overhead) > $L/build.log 2>&1 || { tail -20 $L/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 ))s"
for v in div2 div1 divhalf; do
  mkdir -p /tmp/cd/$v/mlp
  if [[ $v == div2 ]]; then cp $D/mlp/train_mlp.ptx /tmp/cd/$v/mlp/
  else python3 $D/claimdiv/edit_divisor.py $D/mlp/train_mlp.ptx $v /tmp/cd/$v/mlp/train_mlp.ptx; fi
done
for r in 1 2; do
  for v in div2 div1 divhalf; do
    timeout 100 build-gpu/bench/variant_overhead /tmp/cd/$v bench/manifests/colocation-mlp.txt > $L/$v-round$r.txt 2>&1
    echo "$v round $r rc=$? $(( $(date +%s)-t0 ))s"
  done
done
for v in div2 div1 divhalf; do
  echo "== $v"; python3 $D/mlp_weighted.py bench/manifests/colocation-mlp.txt $L/$v-round*.txt
done | tee $L/summary.txt
cd $OUT && tar czf h.tgz h && rm -rf h
