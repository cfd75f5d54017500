# Sourced by the GPU scripts of test/Preload. `skip_without_gpu` ends the
# script with ctest's skip status (77) where no GPU answers. `check NAME
# EXPR` evaluates the shell expression EXPR, prints "PASS: NAME" or
# "FAIL: NAME" and counts it; `checks_done` prints the counts and returns
# nonzero if a check failed. `all_scheduled LOG`: the interposer's summary
# in LOG says every launch was scheduled best-effort (at least one), and
# each ran as a variant (the run sets BE_VARIANTS_ONLY).
# `take_peer_script_args "$@"`: the arguments of the scripts that run a
# program next to a latency-critical peer (NVCC BATON_RECOMPILE
# LIBBATON_PRELOAD BATONCTL WORKDIR) into nvcc, recompile, preload, batonctl
# and work; exits 2 with the usage otherwise.
take_peer_script_args() {
  if (($# != 5)); then
    echo "usage: $0 NVCC BATON_RECOMPILE LIBBATON_PRELOAD BATONCTL WORKDIR" >&2
    exit 2
  fi
  nvcc=$1 recompile=$2 preload=$3 batonctl=$4 work=$5
}
skip_without_gpu() {
  if ! nvidia-smi -L >/dev/null 2>&1; then
    echo "SKIPPED: no GPU (nvidia-smi -L failed)"
    exit 77
  fi
}
passed=0 failed=0
check() {
  if eval "$2"; then
    echo "PASS: $1"
    passed=$((passed + 1))
  else
    echo "FAIL: $1"
    failed=$((failed + 1))
  fi
}
all_scheduled() {
  grep -Eq "baton-preload: [1-9][0-9]* launches scheduled best-effort, 0 unchanged" "$1" &&
    grep -q "baton-preload: 0 of them ran as the originals" "$1"
}
# For `env`: no routed launch of a kernel with variants runs as the
# original (the scheduler's rules for a quiet and an idle device off, as
# bench/torch/check_training.py sets them), so that the checks test the
# variants.
BE_VARIANTS_ONLY=(BATON_ONE_WAVE_ORIGINALS=0 BATON_IDLE_ORIGINAL_BLOCKS_US=0
                  BATON_QUIET_ORIGINALS_UP_TO_US=0)
checks_done() {
  echo "$passed passed, $failed failed"
  ((failed == 0))
}
