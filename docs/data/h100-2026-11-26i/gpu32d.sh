#!/usr/bin/env bash
# Thirty-second session, call d: check_ops.py with the integer-atomics case
# on int32 (Inductor leaves 64-bit atomic adds to ATen), on a fresh
# machine; then the PTX and Triton metadata of every kernel it routed,
# from Triton's cache, for the corpus.
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/d; mkdir -p $L/ptx
t0=$(date +%s)
cmake -S . -B build-torch -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF \
  -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) \
  -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DCLI11_INCLUDE_DIR=$R/.deps > $L/build.log 2>&1 &&
  cmake --build build-torch -j 16 --target baton_python >> $L/build.log 2>&1; echo "build rc=$? $(( $(date +%s)-t0 ))s"
export PYTHONPATH=$R/build-torch/python BATON_CACHE_DIR=$L/cache
timeout -s ABRT 400 python3 -X faulthandler bench/torch/check_ops.py --out $L > $L/ops.log 2>&1; echo "ops rc=$? $(( $(date +%s)-t0 ))s"
sed -n '/==== check_ops summary/,$p' $L/ops.log | grep -E "int-atomics|passed" | cut -c1-300
python3 - "$L" <<'PY'
import glob, json, os, shutil, sys
out = sys.argv[1]
names = {k["name"] for r in json.load(open(f"{out}/check-ops.json")).values()
         for k in r["kernels"]}
cache = os.environ.get("TRITON_CACHE_DIR", os.path.expanduser("~/.triton/cache"))
found = {}
for ptx in glob.glob(f"{cache}/*/*.ptx"):
    name = os.path.basename(ptx)[:-4]
    if name in names and name not in found:
        found[name] = ptx
        shutil.copy(ptx, f"{out}/ptx/{name}.ptx")
        meta = ptx[:-4] + ".json"
        if os.path.exists(meta):
            shutil.copy(meta, f"{out}/ptx/{name}.json")
print(f"copied {len(found)} of {len(names)} kernels' PTX")
print("missing:", sorted(names - set(found)))
PY
rm -rf $L/cache
gzip -f $L/*.log
cd $OUT && tar czf d.tgz d && rm -rf d
