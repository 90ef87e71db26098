#!/usr/bin/env bash
# The diffusion3d workload's H200 measurements, as committed in bench/results/h200/.
# Run on the GPU machine from the repository root, with the bundle from scripts/gpu-bundle.sh
# (scripts/h200-common.sh says how):
#   OUT=some/folder scripts/h200-diffusion3d.sh
# Fast runs first. On the seed grid GCC's acc_kernels takes about 1.1 s per step and acc_loop
# 0.27 s per step (diffusion3d_seed_kernels_3steps.json): over 1638 steps they would take 30
# and 7 minutes a run, so they are measured on 3 steps only.
set -uo pipefail
source "$(dirname "$0")/h200-common.sh"
if [[ ${GOMP_LAUNCHES:-1} == 1 ]]; then
  echo "== launch shapes (GOMP_DEBUG=1, 1 step)"
  GOMP_DEBUG=1 "$acclab" run diffusion3d --preset seed --set steps=1 --variant 'acc_*' --reps 1 2>&1 |
    grep "launch gangs" | sed 's/.*kernel //' | sort | uniq -c
fi
run diffusion3d_256 ladder diffusion3d --preset large --variant 'acc_data_present,acc_tuned,cuda' --reps 3
run diffusion3d_512 ladder diffusion3d --preset large --set nx=512 --set ny=512 --set nz=512 \
  --set steps=50 --variant 'acc_tuned,cuda' --reps 3
run diffusion3d_seed ladder diffusion3d --preset seed \
  --variant 'original,openmp,acc_data_present,acc_tuned,cuda' --reps 2
run diffusion3d_seed_kernels_3steps ladder diffusion3d --preset seed --set steps=3 \
  --variant 'original,acc_kernels,acc_loop' --reps 1
