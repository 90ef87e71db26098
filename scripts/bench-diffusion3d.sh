#!/usr/bin/env bash
# The diffusion3d workload's measurements on one GPU, as committed in
# bench/results/h200/diffusion3d/ (an H100's go to bench/results/h100/: scripts/bench-common.sh).
# Run on the GPU machine from the repository root, with the bundle from scripts/gpu-bundle.sh
# (scripts/bench-common.sh says how):
#   OUT=some/folder scripts/bench-diffusion3d.sh
# Fast runs first. On the seed grid GCC's acc_kernels takes about 1.1 s per step and acc_loop
# 0.27 s per step (diffusion3d_seed_kernels_3steps.json): over 1638 steps they would take 30
# and 7 minutes a run, so they are measured on 3 steps only.
set -uo pipefail
results=diffusion3d
source "$(dirname "$0")/bench-common.sh"
if [[ ${GOMP_LAUNCHES:-1} == 1 ]]; then
  acc_launch_shapes "1 step" diffusion3d --preset seed --set steps=1 --variant 'acc_*'
fi
# CHECK=1: every OpenACC loop shape and every tuning value of cuda verified on the GPU, on grids that no tile,
# chunk or vector length divides.
if [[ ${CHECK:-1} == 1 ]]; then
  echo "== correctness of every shape on the GPU"
  for grid in "--set nx=17 --set ny=9 --set nz=33 --set steps=5" \
              "--set nx=300 --set ny=3 --set nz=4 --set steps=3" \
              "--set nx=64 --set ny=20 --set nz=9"; do
    # shellcheck disable=SC2086
    echo "$grid: $(timeout 120 "$acclab" run diffusion3d $grid \
      --variant acc_flat,acc_rows,acc_march,acc_tuned --reps 1 --format json | statuses)"
    for sets in "--set cuda_pdl=0" "--set cuda_x4=0" \
                "--set cuda_planes=0 --set cuda_tile_y=16" \
                "--set cuda_planes=8 --set cuda_tile_y=8" \
                "--set cuda_planes=64 --set cuda_pdl=0"; do
      # shellcheck disable=SC2086
      echo "$grid $sets: $(timeout 120 "$acclab" run diffusion3d $grid $sets \
        --variant cuda --reps 1 --format json | statuses)"
    done
  done
fi
# MAIN=0 leaves out the main measurements (to run the sweep alone).
if [[ ${MAIN:-1} == 1 ]]; then
  run diffusion3d_256 ladder diffusion3d --preset large --variant 'acc_data_present,acc_tuned,cuda' --reps 3
  run diffusion3d_512 ladder diffusion3d --preset large --set nx=512 --set ny=512 --set nz=512 \
    --set steps=50 --variant 'acc_tuned,cuda' --reps 3
  # The knobs off: a construct a step (acc_flat), cuda each step after the previous.
  run diffusion3d_256_knobs_off run diffusion3d --preset large --variant 'acc_flat,cuda' \
    --set cuda_pdl=0 --reps 3
  run diffusion3d_512_knobs_off run diffusion3d --preset large --set nx=512 --set ny=512 \
    --set nz=512 --set steps=50 --variant 'acc_flat,cuda' --set cuda_pdl=0 --reps 3
  run diffusion3d_seed ladder diffusion3d --preset seed \
    --variant 'original,openmp,acc_data_present,acc_tuned,cuda' --reps 2
  run diffusion3d_seed_kernels_3steps ladder diffusion3d --preset seed --set steps=3 \
    --variant 'original,acc_kernels,acc_loop' --reps 1
fi
# The tuning sweep (SWEEP=1), for choosing the defaults of cuda's block shape (cuda_planes,
# cuda_tile_y) and the OpenACC loop shapes (acc_flat ... acc_tuned): 22 runs of 3 repetitions, at 256^3 and
# 512^3, then the launch shapes GCC's runtime picked for the rows and resident loops.
if [[ ${SWEEP:-0} == 1 ]]; then
  for grid in 256 512; do
    if [[ $grid == 256 ]]; then
      size=(--preset large)
      cuda_shapes="4:4 8:4 16:8 32:8 64:8 32:16 64:16 32:4"
    else
      size=(--preset large --set nx=512 --set ny=512 --set nz=512 --set steps=50)
      cuda_shapes="4:4 8:4 16:8 32:8 64:8 0:8"
    fi
    for shape in $cuda_shapes; do
      planes=${shape%:*} tile_y=${shape#*:}
      run "diffusion3d_sweep_${grid}_cuda_p${planes}_y${tile_y}" run diffusion3d "${size[@]}" \
        --variant cuda --set cuda_planes="$planes" --set cuda_tile_y="$tile_y" --reps 3
    done
    for variant in acc_flat acc_rows acc_march acc_tuned; do
      run "diffusion3d_sweep_${grid}_${variant}" run diffusion3d "${size[@]}" \
        --variant "$variant" --reps 3
    done
  done
  echo "== acc_rows and acc_tuned launch shapes (GOMP_DEBUG=1, 1 step at 256^3)"
  for variant in acc_rows acc_tuned; do
    GOMP_DEBUG=1 "$acclab" run diffusion3d --preset large --set steps=1 --variant "$variant" \
      --reps 1 2>&1 | grep "launch gangs" | sed 's/.*kernel //' |
      sort | uniq -c
  done
fi
