#!/usr/bin/env bash
# The PyTorch / Triton GPU runs of baton.torch, from the repository root on
# a machine with an NVIDIA GPU, PyTorch and Triton (no network needed;
# pybind11 headers carried in .deps/pybind11, see docs/torch.md):
#
#   bench/torch/run.sh check        # loss with Baton == loss without (GPT,
#                                   # CNN, ViT); CUDA graph capture
#                                   # (check_graphs.py); 30 kinds of
#                                   # Inductor kernel (check_ops.py);
#                                   # Triton loads next to paused
#                                   # training (check_loads.py); requests
#                                   # next to a queue of kernels that
#                                   # bypass Baton (check_bypass.py)
#   bench/torch/run.sh zoo          # the loss check over models of timm,
#                                   # torchvision and transformers (zoo.py)
#   bench/torch/run.sh bench [ARGS] # colocation benchmark (GPT training);
#                                   # ARGS go to colocate_torch.py, e.g.
#                                   # --train cnn, --systems baton,priority
#   bench/torch/run.sh all          # both
#
# Builds baton._core into build-torch/ first (seconds once built). Output
# goes to $OUT (or build-torch/out): logs, JSON, PNG plots; a summary is
# printed last. Every step runs under a time limit; the exit status is
# nonzero if a step failed.
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
build=${BATON_TORCH_BUILD_DIR:-build-torch}
out=${OUT:-$build/out}
what=${1:-all}
shift || true
mkdir -p "$out"
# step NAME LIMIT_S LOG COMMAND... (scripts/lib/step.sh): each stage under a
# time limit, its output to the terminal and LOG, a row of the summary table
# that names the log.
step_tee=1 step_kill_after=15 step_row='%-10s %-12s %4ss  %s'
# shellcheck source=scripts/lib/step.sh
source "$root/scripts/lib/step.sh"
step_detail() { basename "$1"; }

python=$(command -v python3)
gen=(); command -v ninja >/dev/null && gen=(-G Ninja)
step build 300 "$out/build.log" bash -c "
  cmake -S . -B '$build' ${gen[*]} -DCMAKE_BUILD_TYPE=Release \
    -DBATON_ENABLE_LLVM=OFF -DBATON_ENABLE_TESTS=OFF -DBATON_ENABLE_TOOLS=OFF \
    -DPython3_EXECUTABLE='$python' ${BATON_CMAKE_ARGS:-} &&
  cmake --build '$build' -j $(nproc) --target baton_python"
if ((failed)); then
  printf '%s\n' "${summary[@]}"
  exit 1
fi
export PYTHONPATH=$root/$build/python${PYTHONPATH:+:$PYTHONPATH}
export BATON_CACHE_DIR=${BATON_CACHE_DIR:-$HOME/.cache/baton}

# The CPU tests first (seconds): a broken package fails here, not on the GPU.
step unit 120 "$out/unit.log" "$python" -m unittest discover \
  -s python/tests -t python/tests

if [[ $what == check || $what == all ]]; then
  step check 480 "$out/check.log" "$python" bench/torch/check_training.py \
    --out "$out"
  step graphs 600 "$out/graphs.log" "$python" bench/torch/check_graphs.py \
    --out "$out"
  step ops 540 "$out/ops.log" "$python" bench/torch/check_ops.py \
    --out "$out"
  step loads 330 "$out/loads.log" "$python" bench/torch/check_loads.py \
    --out "$out"
  step bypass 120 "$out/bypass.log" "$python" bench/torch/check_bypass.py \
    --out "$out"
fi

if [[ $what == zoo ]]; then
  step zoo 900 "$out/zoo.log" "$python" bench/torch/check_training.py \
    --models zoo --matmuls library --budget 600 --model-timeout 200 \
    --out "$out"
fi

if [[ $what == bench || $what == all ]]; then
  step bench 480 "$out/bench.log" "$python" bench/torch/colocate_torch.py \
    --out "$out/bench" "$@"
  if "$python" -c "import matplotlib" 2>/dev/null; then
    step plot 60 "$out/plot.log" "$python" bench/colocation/plot.py \
      "$out/bench/results.json" "$out"
  else
    summary+=("plot       SKIP (no matplotlib: plot with bench/colocation/plot.py elsewhere)")
  fi
fi

echo
echo "================ bench/torch summary ================"
printf '%s\n' "${summary[@]}"
for log in "$out/check.log" "$out/zoo.log"; do
  [[ -f $log ]] && sed -n '/==== check_training summary/,$p' "$log"
done
[[ -f $out/ops.log ]] && sed -n '/==== check_ops summary/,$p' "$out/ops.log"
[[ -f $out/bench.log ]] && sed -n '/==== torch colocation/,$p' "$out/bench.log"
exit $failed
