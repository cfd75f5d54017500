#!/usr/bin/env bash
# Thirty-fifth session, call b: where a request's bracket begins. baton-time
# begins it before the graph is launched, so training stays paused through
# the host's graph submission; baton-time-late begins it once the graph is
# queued. Both with the MLP as it is (130 us product blocks) and with its
# products split eight ways (about 16 us blocks), loads 10% and 50%, three
# rounds each, the same arrivals in every run (--service-ms).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/b; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
cd bench/colocation
for S in 1 8; do
  timeout 280 python3 colocate.py --lib $R/build/bench/colocation/libbaton_train_mlp.so --out $L/splits$S --rounds 3 --deadline 260 --loads 0.1,0.5 --splits $S --service-ms bert=0.31,cnn=0.92 --systems alone,baton-time,baton-time-late > $L/splits$S.log 2>&1
  echo "splits $S rc=$? ($(( $(date +%s)-t0 ))s)"
  gzip -f $L/splits$S/latencies.json $L/splits$S/children.log
done
for S in 1 8; do echo "== splits $S"; sed -n '/^====/,$p' $L/splits$S.log | cut -c1-170 | grep -v '^$' | head -20; done
cd $OUT && tar czf b.tgz b && rm -rf b
