#!/usr/bin/env bash
# #6: training alone, bench and large sizes.
set -u
cd "$(dirname "$0")/.."
bash build-scratch/gpu-torch.sh alone-large --systems settings,baton-alone --train-for 4 --train-scale large
bash build-scratch/gpu-torch.sh alone-bench --systems settings,baton-alone --train-for 4
