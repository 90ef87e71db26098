#!/usr/bin/env bash
# diffusion3d's mpi_* steps under mpirun, as CI runs them (no GPU: OpenACC on the host): every
# step on 1 to 4 ranks equals the serial field bit for bit, uneven boxes and forced process
# grids along each axis included, rank 0 alone writes --out, and bad input is one line and exit
# 2 from every rank. The small preset (24 x 20 x 16) with few steps keeps it quick.
# usage: mpi_diffusion3d_test.sh ACCLAB_BINARY MPIEXEC
set -u
acclab=$1
mpiexec=$2
source "$(dirname "$0")/checks.sh"
source "$(dirname "$0")/mpi_checks.sh"
small=(--preset small --set steps=12 --reps 1)

# $1: the JSON report; $2: ranks; $3: the process grid expected ("" for any that fits).
check_report() { check_stencil_report "$1" "$2" "$3" 3 max_diff_vs_original steps=12; }

check_on_1_to_4_ranks diffusion3d field "${small[@]}"

# Uneven boxes along each axis in turn (24, 20 and 16 cells over 3 ranks; 20 over 3 and 16 over
# 3 do not divide), and a box with faces on all three axes.
for grid in 3x1x1 1x3x1 1x1x3; do
  check_on_3_ranks_as $grid diffusion3d field "${small[@]}"
done
launch 4 "$acclab" run diffusion3d --variant 'mpi_*' --preset small --set steps=12 --reps 1 \
  --set nx=7 --set ny=5 --set nz=9 --set proc_grid=2x2x1 --format json --out "$dir/odd.json" \
  > /dev/null 2>&1
check "7 x 5 x 9 over 2x2x1: exit 0" test $? -eq 0
check "7 x 5 x 9 over 2x2x1: bit for bit the serial field" check_report "$dir/odd.json" 4 2x2x1

# Bad input: one line from rank 0, exit 2, from every rank (one_line_exit_2: mpi_checks.sh).
one_line_exit_2 "a proc_grid of 4 ranks on 3" "proc_grid=2x2x1" \
  launch 3 "$acclab" run diffusion3d --variant 'mpi_*' --set proc_grid=2x2x1
one_line_exit_2 "a 2D proc_grid" "proc_grid=3x1" \
  launch 3 "$acclab" run diffusion3d --variant 'mpi_*' --set proc_grid=3x1
one_line_exit_2 "more ranks along a side than cells" "more ranks along a side" \
  launch 4 "$acclab" run diffusion3d --variant mpi_openmp --set nz=3 --set proc_grid=1x1x4
one_line_exit_2 "a step that is not an MPI step on 2 ranks" "openmp is not an MPI step" \
  launch 2 "$acclab" run diffusion3d --variant openmp
one_line_exit_2 "a bad --set on 2 ranks" "--set nx" \
  launch 2 "$acclab" run diffusion3d --variant 'mpi_*' --set nx=x
check "no report written by a refused run" test ! -e "$dir/out.json"
exit $((failures > 0))
