#!/usr/bin/env bash
# mpi_acc_overlap with the queues waiting for each other on the device (ce9ab85) against the
# host-synchronised boundary-first form (5b06807). 1. One rank, the exchange path forced (builds
# of both with `alone = false`, bundle/exp/acclab-{old,new}-forced): what the host's launches
# between sweeps cost the GPU, on 8192^2. 2. Two ranks sharing the one H200, ce9ab85's bundle,
# mpi_acc_staged beside it (5b06807's figures: call 2). Run from the repository root:
#   OUT=$OUT/m bash bench/results/h200/mpi-overlap/call3.sh
set -uo pipefail
default_out=bench/results/h200/mpi-overlap
source scripts/h200-common.sh
new=$acclab
for build in old new; do
  acclab=./bundle/exp/acclab-$build-forced
  launch "jacobi2d_np1_forced_$build" 1 run jacobi2d --preset large --set rows=8192 \
    --set cols=8192 --reps 5 --variant mpi_acc_staged,mpi_acc_overlap
done
acclab=$new
launch jacobi2d_np2_device_waits 2 run jacobi2d --preset large --reps 5 \
  --variant mpi_acc_staged,mpi_acc_overlap
launch diffusion3d_np2_device_waits 2 run diffusion3d --preset large --reps 5 \
  --variant mpi_acc_staged,mpi_acc_overlap
