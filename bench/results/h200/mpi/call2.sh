#!/usr/bin/env bash
# mpi_acc_overlap with the boundary first (889a790) against the pack-first form it replaces
# (b5348e8), two ranks sharing the one H200, mpi_acc_staged beside it in each launch. Run from
# the repository root with the bundle of 889a790 and b5348e8's binary as
# bundle/exp/acclab-b5348e8:
#   OUT=$OUT/m bash bench/results/h200/mpi-overlap/call2.sh
set -uo pipefail
default_out=bench/results/h200/mpi-overlap
source scripts/h200-common.sh
boundary_first=$acclab pack_first=./bundle/exp/acclab-b5348e8
for build in pack_first boundary_first; do
  acclab=${!build}
  launch "jacobi2d_np2_$build" 2 run jacobi2d --preset large --reps 5 \
    --variant mpi_acc_staged,mpi_acc_overlap
  launch "diffusion3d_np2_$build" 2 run diffusion3d --preset large --reps 5 \
    --variant mpi_acc_staged,mpi_acc_overlap
done
