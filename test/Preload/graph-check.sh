#!/usr/bin/env bash
# GPU test of CUDA graph capture through the launch interposer (ctest
# gpu.preload_graphs): test/Preload/Inputs/graph_check.cu launches two
# kernels eagerly, captures them into a graph in global mode on a second
# stream while eager launches are still in flight, replays the graph with
# new inputs, and launches eagerly again, checking every result against the
# CPU. Run plain, preloaded best-effort (eager launches scheduled, the
# captured ones issued unchanged, the scheduler's thread busy during the
# capture) and preloaded latency-critical in a registry of its own, with
# ends written by the streams and with ends seen by polling events
# (captured launches not announced, whose ends would otherwise be written
# at every replay): results right, and no latency-critical work left
# outstanding or expired once the program is done. Exit 77 without a GPU.
#
#   graph-check.sh NVCC BATON_RECOMPILE LIBBATON_PRELOAD BATONCTL WORKDIR
set -euo pipefail
# shellcheck source=test/Preload/checks.sh
source "$(dirname "$0")/checks.sh"
take_peer_script_args "$@"
skip_without_gpu
src=$(cd "$(dirname "$0")/Inputs" && pwd)
rm -rf "$work" && mkdir -p "$work" && cd "$work"
"$nvcc" -O3 -gencode arch=compute_90,code=compute_90 \
  -gencode arch=compute_90,code=sm_90 "$src/graph_check.cu" -o graph_check
"$recompile" graph_check --cache-dir cache -q

rounds=8
# Each run's checks: 3 x rounds. Eager launches: 2 per round before and
# after the capture, and 20 during it.
scheduled=$((4 * rounds + 20))
timeout 120 ./graph_check $rounds >plain.log 2>&1 || true
timeout 120 env "${BE_VARIANTS_ONLY[@]}" LD_PRELOAD="$preload" \
  BATON_SCHEDULE=best-effort BATON_VERBOSE=1 \
  BATON_CACHE_DIR="$PWD/cache" BATON_SHARE=0 ./graph_check $rounds \
  >be.log 2>&1 || true

# Latency-critical, twice: ends written by the streams, and ends seen by
# the library's thread polling events (BATON_SHARE_END=events), whose
# queries run while the program captures in global mode.
lc_run() { # LOG [ENV...]
  local log=$1 registry=/baton-graph-check-$$-$1
  shift
  timeout 120 env LD_PRELOAD="$preload" BATON_SCHEDULE=latency-critical \
    BATON_VERBOSE=1 BATON_CACHE_DIR="$PWD/cache" \
    BATON_SHARE_REGISTRY=$registry BATON_SHARE_LEASE_MS=500 "$@" \
    ./graph_check $rounds 3000 >$log.log 2>&1 &
  local lc=$!
  for _ in $(seq 600); do grep -q "graph_check:" $log.log && break; sleep 0.1; done
  sleep 1 # past the lease: work left outstanding would have expired by now
  BATON_SHARE_REGISTRY=$registry "$batonctl" --json >$log.json 2>&1 || true
  wait $lc || true
  rm -f "/dev/shm${registry}"
}
lc_run lc
lc_run lc-events BATON_SHARE_END=events
grep -E "graph_check:|baton-preload:" plain.log be.log lc.log lc-events.log
cat lc.json lc-events.json

all_right() { grep -q "graph_check: $((3 * rounds)) passed, 0 failed" "$1"; }
check "plain run: results right" 'all_right plain.log'
check "best-effort: results right" 'all_right be.log'
check "best-effort: every eager launch scheduled, the captured ones unchanged" \
  'grep -q "baton-preload: $scheduled launches scheduled best-effort, $((2 + rounds)) unchanged (CUDA graph $rounds, captured into a CUDA graph 2)" be.log'
check "best-effort: every scheduled launch ran as a variant" \
  'grep -q "baton-preload: 0 of them ran as the originals" be.log'
for run in lc lc-events; do
  check "$run: results right" "all_right $run.log"
  check "$run: the captured launches were not announced" \
    "grep -q 'announced as latency-critical, 2 captured into CUDA graphs' $run.log"
  check "$run: launches were announced" \
    "grep -Eq '\"lc_announced\": [1-9]' $run.json"
  check "$run: nothing left outstanding or expired" \
    "grep -q '\"lc_outstanding\": 0, \"lc_expired\": 0' $run.json"
done
check "lc-events: the ends were seen by polling events" \
  "grep -q '\"end_path\": \"event-poll\"' lc-events.json"
checks_done
