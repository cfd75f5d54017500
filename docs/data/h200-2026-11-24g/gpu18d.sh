#!/usr/bin/env bash
# Eighteenth session: ncu on mm_t_6 original vs PTB variant, PTB first runs on the user's stream.
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
L=$OUT/d; mkdir -p $L
cmake -S . -B build-torch -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) > $L/tbuild.log 2>&1 && cmake --build build-torch -j16 --target baton_python >> $L/tbuild.log 2>&1 || { tail -20 $L/tbuild.log; exit 1; }
export PYTHONPATH=$PWD/build-torch/python BATON_CACHE_DIR=$PWD/build-scratch/bcache
BATON_SHARE=0 timeout 560 ncu --clock-control none --profile-from-start off -k regex:mm_t_6 -c 6 \
  --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats \
  --section WarpStateStats --section SchedulerStats \
  --metrics lts__t_sector_hit_rate.pct,dram__bytes_read.sum,lts__t_bytes.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__sm_count \
  python3 build-scratch/mprobe.py > $L/ncu.log 2>&1; echo "ncu rc=$? $(( $(date +%s)-t0 ))s"
grep -E "^  [a-z_]+.*Context|dram__bytes|hit_rate|Duration|L2 Cache Throughput|Achieved Occupancy|Registers Per|Dynamic Shared|Block Limit Sh|Block Limit Reg|Warp Cycles Per Issued|No Eligible" $L/ncu.log | head -60
cd $OUT && tar czf d.tgz d && rm -rf d
