# shellcheck shell=bash
# step: how the GPU scripts (scripts/runtime-gpu-check.sh, bench/share/run.sh,
# bench/torch/run.sh) run each stage: under a time limit, logged, with a row
# for the summary table they print last. Sourced by path from the script's
# own location, so that the script works from any directory:
#
#   cd "$(dirname "$0")/../.."; root=$PWD
#   step_row='%-24s %-14s %5ss  %s'          # settings, see below
#   source "$root/scripts/lib/step.sh"
#   step build 300 "$logs/build.log" cmake --build "$build"
#   ...
#   printf '%s\n' "${summary[@]}"; exit $failed
#
# step NAME LIMIT_S LOG COMMAND...: runs COMMAND (SIGTERM after LIMIT_S,
# SIGKILL step_kill_after seconds later) with its output into LOG, prints a
# line before and after, and appends to `summary` a row: NAME, PASS / SKIP
# (exit 77) / TIMEOUT / FAIL(rc=N), the seconds it took, and step_detail's
# text. A failure or timeout sets failed=1. It returns 0, so that a script
# under set -e goes on and reports every step at the end.
#
# The first step of the run that names a LOG starts it afresh; later steps
# append, so that several steps may share one log. Unless COMMAND's output
# is on the terminal too (step_tee), the lines before and after go into LOG
# as well, to mark where each step's output starts and ends.
#
# Settings, shell variables read at each call (set before or after sourcing):
#   step_tee=1          COMMAND's output goes to the terminal as well as LOG
#                       (default: to LOG only)
#   step_row=FORMAT     printf format of a row, with the name, status,
#                       seconds and detail (default '%-22s %-12s %4ss  %s')
#   step_kill_after=S   seconds between SIGTERM and SIGKILL (default 10)
# and step_detail, a function a script may define again after sourcing.

summary=()
failed=0
declare -A step_logs=()

# step_detail LOG STATUS: the row's last column. Here the last line of LOG
# that reads like a result (a test count, SKIPPED, a geometric mean,
# transform-tree's count), and the log to read when the step did not pass.
step_detail() {
  local log=$1 status=$2 detail
  local result='^[0-9]+ passed, [0-9]+ failed|^SKIPPED|geometric mean'
  result+='|^transform-tree'
  detail=$(grep -E "$result" "$log" | tail -1) || true
  [[ $status == PASS ]] || detail="${detail:+$detail; }see $(basename "$log")"
  printf '%s\n' "$detail"
}

# step_say LOG LINE: a line of step's own, on the terminal and, unless
# COMMAND's output is on it too, in LOG.
step_say() {
  if [[ ${step_tee:-} == 1 ]]; then
    echo "$2"
  else
    echo "$2" | tee -a "$1"
  fi
}

# shellcheck disable=SC2034 # failed is for the script that sources this
step() {
  local name=$1 limit=$2 log=$3
  shift 3
  local start=$SECONDS rc=0 status=PASS
  if [[ -z ${step_logs[$log]:-} ]]; then
    : >"$log"
    step_logs[$log]=1
  fi
  step_say "$log" "=== $name ($(date +%H:%M:%S)): $*"
  local limited=(timeout --kill-after="${step_kill_after:-10}" "$limit")
  if [[ ${step_tee:-} == 1 ]]; then
    # The group under || keeps set -e from stopping at a failed pipeline,
    # with or without pipefail; PIPESTATUS has COMMAND's own status.
    { "${limited[@]}" "$@" 2>&1 | tee -a "$log"; rc=${PIPESTATUS[0]}; } || true
  else
    "${limited[@]}" "$@" >>"$log" 2>&1 || rc=$?
  fi
  case $rc in
    0) ;;
    77) status=SKIP ;;
    124|137) status=TIMEOUT; failed=1 ;;
    *) status="FAIL(rc=$rc)"; failed=1 ;;
  esac
  local seconds=$((SECONDS - start)) detail
  detail=$(step_detail "$log" "$status")
  step_say "$log" "=== $name: $status after $seconds s"
  # shellcheck disable=SC2059 # the format is the script's setting
  summary+=("$(printf "${step_row:-%-22s %-12s %4ss  %s}" "$name" "$status" \
                "$seconds" "$detail")")
  return 0
}
