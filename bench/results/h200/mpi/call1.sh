#!/usr/bin/env bash
# mpi_acc_overlap before and after 01c796a (edges packed before the interior is queued;
# jacobi2d's ring in one construct), two ranks sharing the one H200, mpi_acc_staged beside it
# in each launch; then each build's --profile of jacobi2d's overlap and one GOMP_DEBUG trace of
# two sweeps on a small grid. Run from the repository root with the bundle (the build of
# 01c796a) and the build before it as bundle/exp/acclab-before:
#   OUT=$OUT/m bash bench/results/h200/mpi-overlap/call1.sh
set -uo pipefail
default_out=bench/results/h200/mpi-overlap
source scripts/h200-common.sh
after=$acclab before=./bundle/exp/acclab-before
for build in before after; do
  acclab=${!build}
  launch "jacobi2d_np2_$build" 2 run jacobi2d --preset large --reps 5 \
    --variant mpi_acc_staged,mpi_acc_overlap
  launch "diffusion3d_np2_$build" 2 run diffusion3d --preset large --reps 5 \
    --variant mpi_acc_staged,mpi_acc_overlap
done
for build in before after; do
  echo "profile_$build.txt: mpirun -np 2 acclab run jacobi2d --preset large --reps 1" \
    "--variant mpi_acc_overlap --profile" >> "$out/commands.txt"
  mpirun --allow-run-as-root -q --bind-to none -np 2 "${!build}" run jacobi2d --preset large \
    --reps 1 --variant mpi_acc_overlap --profile > "$out/profile_$build.txt" 2>&1
  echo "gomp_debug_$build.txt: GOMP_DEBUG=1 mpirun -np 2 acclab run jacobi2d --set rows=130" \
    "--set cols=130 --set iters=2 --reps 1 --variant mpi_acc_overlap" >> "$out/commands.txt"
  GOMP_DEBUG=1 mpirun --allow-run-as-root -q --bind-to none -x GOMP_DEBUG -np 2 "${!build}" \
    run jacobi2d --set rows=130 --set cols=130 --set iters=2 --reps 1 \
    --variant mpi_acc_overlap > "$out/gomp_debug_$build.txt" 2>&1 && xz "$out/gomp_debug_$build.txt"
done
pack_out
