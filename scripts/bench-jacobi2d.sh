#!/usr/bin/env bash
# The jacobi2d workload's measurements on one GPU, as committed in bench/results/h200/jacobi2d/
# (an H100's go to bench/results/h100/: scripts/bench-common.sh).
# Run on the GPU machine from the repository root, with the bundle from scripts/gpu-bundle.sh
# (scripts/bench-common.sh says how):
#   OUT=some/folder scripts/bench-jacobi2d.sh
set -uo pipefail
results=jacobi2d
source "$(dirname "$0")/bench-common.sh"
if [[ ${GOMP_LAUNCHES:-1} == 1 ]]; then
  acc_launch_shapes "2 sweeps" jacobi2d --preset seed --set iters=2 --variant 'acc_*'
fi
run jacobi2d_seed ladder jacobi2d --preset seed --reps 5
run jacobi2d_seed_tuned_sync run jacobi2d --preset seed --variant acc_tuned --set async=0 --reps 5
run jacobi2d_large ladder jacobi2d --preset large \
  --variant 'acc_data_region,acc_gang_vector,acc_tuned,cuda' --reps 3
run jacobi2d_tol ladder jacobi2d --preset small --set tol=1e-5 --set iters=1000000 --reps 3
