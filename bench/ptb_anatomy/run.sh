#!/usr/bin/env bash
# The PTB anatomy probe of docs/benchmarks.md, on a machine with an NVIDIA
# GPU and nvcc:  bench/ptb_anatomy/run.sh [ELEMENTS...]
set -euo pipefail
cd "$(dirname "$0")"
bin=${TMPDIR:-/tmp}/baton_ptb_anatomy
nvcc -arch=sm_90 -O3 -I../../include ptb_anatomy.cu -o "$bin"
"$bin" "$@"
