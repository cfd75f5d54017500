#!/usr/bin/env bash
# Eighteenth session: ncu on mm_t_6, original against its PTB variant; then ktime.
set -u
cd "$(dirname "$0")/.."
t0=$(date +%s)
L=$OUT/b; mkdir -p $L
cmake -S . -B build-torch -G Ninja -DCMAKE_BUILD_TYPE=Release -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF -DPython3_EXECUTABLE=$(command -v python3) > $L/tbuild.log 2>&1 && cmake --build build-torch -j16 --target baton_python >> $L/tbuild.log 2>&1 || { tail -20 $L/tbuild.log; exit 1; }
export PYTHONPATH=$PWD/build-torch/python BATON_CACHE_DIR=$PWD/build-scratch/bcache
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
echo "ncu: $NCU"
timeout 420 $NCU --clock-control none --profile-from-start off -k regex:mm_t_6 \
  --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats \
  --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis \
  --metrics lts__t_sector_hit_rate.pct,dram__bytes_read.sum,lts__t_bytes.sum,sm__warps_active.avg.pct_of_peak_sustained_active \
  python3 build-scratch/mprobe.py > $L/ncu.log 2>&1; echo "ncu rc=$? $(( $(date +%s)-t0 ))s"
grep -E "mm_t_6|Duration|Hit Rate|DRAM Throughput|Memory Throughput|Compute \(SM\)|Registers Per|Achieved Occupancy|Theoretical Occupancy|Block Limit|Dynamic Shared|Grid Size|Waves Per SM|Issue Slots Busy|Warp Cycles Per Issued|L2 Hit|Executed Ipc|One or More Eligible|Stall" $L/ncu.log | head -80
left=$(( 590 - ($(date +%s)-t0) ))
[ $left -gt 120 ] && { timeout $left python3 build-scratch/ktime.py --scale large > $L/ktime.log 2>&1; echo "ktime rc=$? $(( $(date +%s)-t0 ))s"; sed -n '/^device time/,$p' $L/ktime.log | head -12; }
cd $OUT && tar czf b.tgz b && rm -rf b
