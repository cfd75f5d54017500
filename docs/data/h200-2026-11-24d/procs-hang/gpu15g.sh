#!/usr/bin/env bash
# Fifteenth session: the fix for resumes that created a stream (deadlock with
# a thread synchronising the user stream): GPU tests with the fix, the new
# exactly_once case against the old Launch.cpp, the MLP check, and the
# torch baton-procs pair that hung.
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
L=$OUT/g; mkdir -p $L
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DCLI11_INCLUDE_DIR=$PWD/.deps > /dev/null 2>&1 && cmake --build build-gpu -j16 > $L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
(cd build-gpu && timeout 200 ctest -R 'gpu\.exactly_once|gpu\.scheduler_check|gpu\.runtime_hostile|gpu\.c_api' --output-on-failure > $L/ctest.log 2>&1); echo "ctest rc=$? ($(( $(date +%s)-t0 ))s)"
grep -E "tests passed|Passed|Failed|resumed under" $L/ctest.log | head
grep -h -E "resumed under|passed, |FAIL" build-gpu/Testing/Temporary/LastTest.log | head -12
timeout 60 python3 bench/colocation/check_train.py $PWD/build-scratch/coloc/libbaton_train_mlp.so > $L/check_train.log 2>&1; echo "check_train rc=$?"; grep -E "FAIL|failed" $L/check_train.log
cmake -S . -B build-torch -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) > $L/tbuild.log 2>&1 && cmake --build build-torch -j16 --target baton_python >> $L/tbuild.log 2>&1 || { tail -20 $L/tbuild.log; }
export PYTHONPATH=$PWD/build-torch/python PYTHONFAULTHANDLER=1
left=$(( 585 - ($(date +%s)-t0) ))
cd bench/torch && timeout $left python3 colocate_torch.py --out $L/procs --systems baton-procs --loads 0.2,0.5,0.8 --window 3 --deadline $((left-15)) > $L/procs.log 2>&1; echo "procs rc=$? ($(( $(date +%s)-t0 ))s)"
sed -n '/==== torch/,$p' $L/procs.log | head -20
cd $OUT && tar czf g.tgz g; echo "total $(( $(date +%s)-t0 ))s"
