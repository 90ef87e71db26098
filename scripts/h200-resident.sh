#!/usr/bin/env bash
# Issue 24's steps on one H200, each beside the step before it in one call, as committed in
# bench/results/h200/<workload>/ (resident_*.json): jacobi2d's acc_resident and cuda_temporal,
# vector's resident bandwidth steps, apsp's optimize_resident, diffusion3d's acc_tuned at 256^3.
# Run on the GPU machine from the repository root, with the bundle from scripts/gpu-bundle.sh
# (scripts/h200-common.sh says how):
#   OUT=some/folder scripts/h200-resident.sh
# With PEER=path/to/jacobi (multi-gpu-programming-models' single_gpu, built for sm_90), that
# Jacobi runs on the seed's grid in the same call, as the issue's comparison asks.
set -uo pipefail
default_out=bench/results/h200/resident
source "$(dirname "$0")/h200-common.sh"
if ldd "$acclab" | grep "not found"; then exit 1; fi

run resident_jacobi2d_seed run jacobi2d --preset seed \
  --variant 'acc_tuned,acc_resident,cuda,cuda_temporal' --reps 5
run resident_jacobi2d_large run jacobi2d --preset large \
  --variant 'acc_tuned,acc_resident,cuda,cuda_temporal' --reps 3
run resident_jacobi2d_tol run jacobi2d --preset small --set tol=1e-5 --set iters=1000000 \
  --variant 'acc_gang_vector,acc_resident,cuda,cuda_temporal' --reps 3
if [[ -n ${PEER:-} ]]; then
  echo "== multi-gpu-programming-models single_gpu, the seed's grid, 100 sweeps" |
    tee "$out/peer_single_gpu.txt"
  "$PEER" -nx 1024 -ny 8192 -niter 100 2>&1 | tee -a "$out/peer_single_gpu.txt"
fi
run resident_vector_seed run vector --preset seed \
  --variant 'triad_acc,triad_acc_resident,triad_cuda,dot_acc_partials,dot_acc_resident,dot_cuda' \
  --reps 5
run resident_apsp_seed run apsp --preset seed --variant 'optimize,optimize_resident,cuda_blocked' \
  --reps 3
run resident_diffusion3d_256 run diffusion3d --preset large --variant 'acc_flat,acc_tuned,cuda' --reps 5
