#!/usr/bin/env bash
# Two processes sharing one GPU through the registry (docs/sharing.md). Run
# from the repository root on a GPU machine (cmake, ninja, nvcc; no LLVM):
#
#   bench/share/run.sh        # logs and JSON under $OUT/share if OUT is set,
#                             # else build-gpu/logs/share
#
# 1. builds baton-ptx, share_gpu and batonctl (CLI11 headers from .deps/);
# 2. transforms test/gpu/kernels/record.ptx with baton-ptx;
# 3. runs the GPU test `share_gpu check`: ends on streams (GPU write and
#    event poll), BE PTB work paused next to an LC peer, an LC peer killed
#    while its work is outstanding;
# 4. measures LC request latency (share_gpu lc: 264 blocks x 50 us of
#    `record`, log-uniform gaps of 0.5-2 ms) and BE throughput (share_gpu
#    be: PTB launches of 2^20 blocks x 50 us) in three setups: LC alone; LC
#    next to BE with only the driver's time slicing; LC next to BE sharing
#    through the registry (BE pauses while LC work is outstanding);
# 5. kills an LC process (SIGKILL) in the middle of a 200 ms request and
#    times how long the BE process stays paused (batonctl --json); then the
#    same kill with neither process using the registry (the control: under
#    MPS a killed client can take the others down by itself);
# 6. repeats 4 and 5 under MPS if nvidia-cuda-mps-control exists (a private
#    daemon, stopped afterwards), and kills the LC client once more the way
#    NVIDIA's MPS documentation asks (`terminate_client`, then SIGKILL);
# 7. prints a summary table last; exits nonzero if a step failed, or if
#    the registry did not cut LC p99 to under half of the pair's without
#    it (a BE process that keeps a time-sliced GPU past its pauses).
#
# Environment: LC_SECONDS (default 10) per setup; BATON_GPU_BUILD_DIR
# (default build-gpu); BATON_CMAKE_ARGS. About 3 minutes after the build.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
build=${BATON_GPU_BUILD_DIR:-build-gpu}
logs=${OUT:-$build/logs}/share
lc_seconds=${LC_SECONDS:-10}
mkdir -p "$logs"
# step NAME LIMIT_S LOG COMMAND... (scripts/lib/step.sh): each stage under a
# time limit, its output to LOG, a row of the summary table.
# shellcheck source=scripts/lib/step.sh
source "$root/scripts/lib/step.sh"

# jget FILE KEY: a number or word from the one-line JSON objects share_gpu
# and batonctl write (no jq on the GPU machine).
jget() {
  sed -n "s/.*\"$2\": \"\{0,1\}\([^,\"}]*\).*/\1/p" "$1" 2>/dev/null | head -1
}

cli=()
[[ -d .deps/CLI ]] && cli=(-DCLI11_INCLUDE_DIR="$root/.deps")
step configure 180 "$logs/configure.log" \
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DBATON_ENABLE_LLVM=OFF "${cli[@]}" ${BATON_CMAKE_ARGS:-}
step build 600 "$logs/build.log" \
  cmake --build "$build" --target baton-ptx share_gpu batonctl
if ((failed)); then
  tail -n 30 "$logs/configure.log" "$logs/build.log"
  exit 1
fi
share_gpu=$build/test/share/share_gpu
batonctl=$build/tools/batonctl/batonctl
xformed=$build/xformed-share
step transform 60 "$logs/transform.log" \
  scripts/transform-tree.sh "$build/tools/baton-ptx/baton-ptx" "$xformed" \
  test/gpu/kernels
record=$xformed/record.ptx

step share_check 300 "$logs/share_check.log" "$share_gpu" check "$record"
if grep -q '^SKIPPED' "$logs/share_check.log"; then
  printf '%s\n' "${summary[@]}"
  echo "no GPU: nothing measured"
  exit 0
fi

results=()
# scenario NAME SETUP: SETUP is alone, timeslice or baton.
scenario() {
  local name=$1 setup=$2
  local reg=/baton-bench-$$-$name share=() bepid=
  [[ $setup == baton ]] || share=(--no-share)
  echo "=== scenario $name ($setup)"
  if [[ $setup != alone ]]; then
    timeout $((lc_seconds + 60)) "$share_gpu" be "$record" --registry "$reg" \
      "${share[@]}" --seconds $((lc_seconds + 3)) --name bench-be \
      --json "$logs/$name-be.json" >"$logs/$name-be.log" 2>&1 &
    bepid=$!
    sleep 1.5 # BE running before the first LC request
  fi
  local watch=
  if [[ $setup == baton ]]; then
    "$batonctl" -r "$reg" --watch -i 0.5 --json >"$logs/$name-batonctl.jsonl" 2>&1 &
    watch=$!
  fi
  local rc=0
  timeout $((lc_seconds + 60)) "$share_gpu" lc "$record" --registry "$reg" \
    "${share[@]}" --seconds "$lc_seconds" --name bench-lc \
    --json "$logs/$name-lc.json" >"$logs/$name-lc.log" 2>&1 || rc=$?
  [[ -n $bepid ]] && { wait "$bepid" || rc=$?; }
  [[ -n $watch ]] && { kill "$watch" 2>/dev/null || true; wait "$watch" 2>/dev/null || true; }
  rm -f "/dev/shm$reg"
  ((rc == 0)) || { failed=1; echo "scenario $name failed (rc=$rc): see $logs/$name-*.log"; }
  local be=-
  [[ -f $logs/$name-be.json ]] && be=$(jget "$logs/$name-be.json" blocks_per_s)
  results+=("$(printf '%-16s %8s %9s %9s %9s %12s %7s %7s  %s' "$name" \
    "$(jget "$logs/$name-lc.json" requests)" "$(jget "$logs/$name-lc.json" p50_us)" \
    "$(jget "$logs/$name-lc.json" p99_us)" "$(jget "$logs/$name-lc.json" max_us)" \
    "$be" "$(jget "$logs/$name-be.json" pauses)" "$(jget "$logs/$name-be.json" resumes)" \
    "$( ((rc == 0)) && echo ok || echo "FAILED rc=$rc")")")
}

kill_results=()
declare -A kill_paused kill_released kill_rc
# kill_scenario NAME [control] [terminate]: an LC process with 200 ms
# requests is killed (SIGKILL) in the middle of one. Sharing through the
# registry: was BE paused before, and how long did it stay paused after? As
# the control, neither process uses the registry: does the BE process
# survive the kill at all? Under MPS a client killed in the middle of a
# kernel can take the server's other clients down with it, which is not
# Baton's doing; NVIDIA's MPS documentation asks that such a client be
# ended with `terminate_client` first, which `terminate` does before the
# SIGKILL.
kill_scenario() {
  local name=$1 control=${2:-} how=${3:-kill} reg=/baton-bench-$$-$1 share=()
  [[ -n $control ]] && share=(--no-share)
  echo "=== scenario $name${control:+ (control: no registry)}"
  timeout 120 "$share_gpu" be "$record" --registry "$reg" "${share[@]}" \
    --seconds 8 --name bench-be --json "$logs/$name-be.json" \
    >"$logs/$name-be.log" 2>&1 &
  local bepid=$!
  sleep 1.5
  "$share_gpu" lc "$record" --registry "$reg" "${share[@]}" --seconds 30 \
    --kernel-us 200000 --name bench-lc >"$logs/$name-lc.log" 2>&1 &
  local lcpid=$!
  local paused=- released=-
  if [[ -z $control ]]; then
    paused=no
    for _ in $(seq 100); do # up to 2 s for BE to yield to it
      "$batonctl" -r "$reg" --json >"$logs/$name-before.json" 2>/dev/null || true
      if grep -q '"name": "bench-be"[^}]*"be_paused": true' "$logs/$name-before.json"; then
        paused=yes
        break
      fi
      sleep 0.02
    done
  else
    sleep 0.5 # its first 200 ms request is running
  fi
  local t0
  t0=$(date +%s%N)
  if [[ $how == terminate ]]; then
    local server
    server=$(echo get_server_list | nvidia-cuda-mps-control 2>/dev/null | head -1)
    echo "terminate_client $server $lcpid" | nvidia-cuda-mps-control \
      >"$logs/$name-terminate.log" 2>&1 || true
  fi
  kill -9 "$lcpid" 2>/dev/null || true
  if [[ -z $control ]]; then
    released=never
    for _ in $(seq 250); do # up to 5 s
      "$batonctl" -r "$reg" --json >"$logs/$name-after.json" 2>/dev/null || true
      if grep -q '"name": "bench-be"[^}]*"be_paused": false' "$logs/$name-after.json"; then
        released=$(( ($(date +%s%N) - t0) / 1000000 ))ms
        break
      fi
      sleep 0.02
    done
  fi
  wait "$lcpid" 2>/dev/null || true
  local rc=0
  wait "$bepid" || rc=$?
  rm -f "/dev/shm$reg"
  kill_paused[$name]=$paused
  kill_released[$name]=$released
  kill_rc[$name]=$rc
}

# kill_rows NAME CONTROL: the two rows of a setup. A BE process that died
# after the kill is a Baton failure only if it survived the control.
kill_rows() {
  local name=$1 control=$2 ok=ok
  local rc=${kill_rc[$name]} crc=${kill_rc[$control]}
  if [[ ${kill_paused[$name]} != yes || ${kill_released[$name]} == never ]]; then
    ok="FAILED (rc=$rc)"
    failed=1
  elif ((rc != 0 && crc != 0)); then
    ok="BE died (rc=$rc), as in the control"
  elif ((rc != 0)); then
    ok="FAILED (rc=$rc; the control's BE survived)"
    failed=1
  fi
  local cok="ok: BE survived"
  ((crc == 0)) || cok="BE died (rc=$crc)"
  kill_results+=("$(printf '%-22s %-10s %-12s %s' "$name" "${kill_paused[$name]}" "${kill_released[$name]}" "$ok")")
  kill_results+=("$(printf '%-22s %-10s %-12s %s' "$control" - - "$cok")")
  local n
  for n in "$name" "$control"; do
    ((kill_rc[$n] == 0)) ||
      kill_results+=("  $n BE: $(grep -m1 -E 'FAIL|error' "$logs/$n-be.log" || echo "rc=${kill_rc[$n]}")")
  done
}

run_all() {
  local suffix=$1
  scenario "alone$suffix" alone
  scenario "timeslice$suffix" timeslice
  scenario "baton$suffix" baton
  kill_scenario "kill$suffix"
  kill_scenario "kill-control$suffix" control
  kill_rows "kill$suffix" "kill-control$suffix"
  if [[ $suffix == -mps ]]; then
    kill_scenario "terminate$suffix" "" terminate
    kill_scenario "terminate-control$suffix" control terminate
    kill_rows "terminate$suffix" "terminate-control$suffix"
  fi
}

run_all ""

mps=no
if command -v nvidia-cuda-mps-control >/dev/null; then
  export CUDA_MPS_PIPE_DIRECTORY=$logs/mps-pipe CUDA_MPS_LOG_DIRECTORY=$logs/mps-log
  mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
  if nvidia-cuda-mps-control -d >"$logs/mps-start.log" 2>&1; then
    mps=yes
    trap 'echo quit | nvidia-cuda-mps-control >/dev/null 2>&1 || true' EXIT
    sleep 1
    run_all "-mps"
    echo quit | nvidia-cuda-mps-control >/dev/null 2>&1 || true
    trap - EXIT
  else
    echo "MPS daemon did not start: see $logs/mps-start.log"
  fi
  unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
fi

# handover SUFFIX: does the registry cut LC p99 to under half of what the
# same pair costs without it? Two things have undone that before, both
# invisible to the functional checks: PTB first runs on the user's stream
# and the dependent finalize keep a time-sliced GPU on the BE context past
# its pauses (docs/sharing.md).
handover=()
handover() {
  local with without
  with=$(jget "$logs/baton$1-lc.json" p99_us)
  without=$(jget "$logs/timeslice$1-lc.json" p99_us)
  [[ -n $with && -n $without ]] || return 0
  if awk -v a="$with" -v b="$without" 'BEGIN { exit !(a < 0.5 * b) }'; then
    handover+=("registry against none$1, LC p99: $with / $without us: ok")
  else
    handover+=("registry against none$1, LC p99: $with / $without us: NOT under half (see docs/sharing.md)")
    failed=1
  fi
}
handover ""
[[ $mps == yes ]] && handover -mps

{
  echo
  echo "================ share summary ================"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | sed 's/^/device: /' || true
  printf '%s\n' "${summary[@]}"
  grep -E '^(end on stream|BE next to|killed LC)' "$logs/share_check.log" || true
  echo "--- LC latency (us) and BE throughput; MPS: $mps ---"
  printf '%-16s %8s %9s %9s %9s %12s %7s %7s  %s\n' setup requests p50 p99 max \
    "BE blocks/s" pauses resumes status
  printf '%s\n' "${results[@]}"
  printf '%s\n' "${handover[@]}"
  echo "--- LC process killed mid-request: BE paused before, released after;"
  echo "    control: neither process uses the registry (does BE survive the kill?) ---"
  printf '%-22s %-10s %-12s %s\n' setup paused released status
  printf '%s\n' "${kill_results[@]}"
  echo "logs: $logs"
} | tee "$logs/summary.txt"
exit $failed
