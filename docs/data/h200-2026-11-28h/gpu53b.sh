#!/usr/bin/env bash
# Fifty-third session, call b (an H200): what a per-launch gate for
# kernels that bypass Baton could build on (CUPTI's headers and library
# next to PyTorch), and gpu.torch_bypass's scenario again with 1000
# requests, for the distribution of the wait beside the queue.
# (The excerpts of CUPTI's headers it copied out are not kept here: they
# are NVIDIA's, and the same headers ship with the toolkit.)
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/b; mkdir -p $L
python3 -c "import torch, triton; print(torch.__version__, torch.version.cuda, triton.__version__)" | tee $L/versions.txt
ls -d /usr/local/cuda/extras/CUPTI/include/cupti.h /usr/local/cuda/extras/CUPTI/lib64/libcupti.so* 2>&1 | tee $L/cupti.txt
find / -xdev \( -name 'libcupti.so*' -o -name 'cupti.h' -o -name 'cupti_driver_cbid.h' \) 2>/dev/null | tee -a $L/cupti.txt
H=$(find / -xdev -name cupti_driver_cbid.h 2>/dev/null | head -1)
[ -n "$H" ] && grep -E "cuLaunchKernel|cuLaunchCooperativeKernel|cuGraphLaunch|cuStreamWaitValue32" "$H" | tee $L/cbid.txt
H2=$(dirname "$H")/cupti_callbacks.h; [ -f "$H2" ] && sed -n '/typedef struct {/,/} CUpti_CallbackData;/p' "$H2" > $L/callbackdata.txt && cp "$(dirname "$H")"/cupti_callbacks.h "$(dirname "$H")"/cupti_result.h $L/ 2>/dev/null
G=$(find / -xdev -name generated_cuda_meta.h 2>/dev/null | head -1); [ -n "$G" ] && grep -A12 -E "typedef struct cuLaunchKernel(Ex)?(_ptsz)?_params_st" "$G" > $L/params.txt
ls build-gpu/python >/dev/null 2>&1 || { cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$R/.deps -DBATON_PYBIND11_INCLUDE_DIR=$R/.deps/pybind11/include -DPython3_EXECUTABLE=$(command -v python3) > $L/build.log 2>&1 && cmake --build build-gpu >> $L/build.log 2>&1; }
export PYTHONPATH=$R/build-gpu/python BATON_CACHE_DIR=$R/build-gpu/python/test-cache
timeout 200 python3 bench/torch/check_bypass.py --out $L --requests 1000 > $L/bypass.log 2>&1; echo "bypass rc=$?"
grep -E "\[bypass.*(alone|ok|FAIL)" $L/bypass.log | grep -v "^\[" | head; grep -E "^\[bypass.*(alone p99|FAIL|ok )" $L/bypass.log | tail -5
cd $OUT && tar czf b.tgz b && rm -rf b
