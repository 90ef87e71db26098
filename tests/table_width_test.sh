#!/usr/bin/env bash
# Every workload's ladder table fits the terminal: with COLUMNS=100 no line is longer than 100
# bytes (mawk's length), the notes numbered under the table; --wide keeps the full lines.
# Tiny problems and one rep keep the host's ladders quick; every variant runs, so the longest
# names and notes are in.
# usage: table_width_test.sh ACCLAB_BINARY
set -u
acclab=$1
source "$(dirname "$0")/checks.sh"  # check

declare -A sizes=(
  [vector]="--set nx=37 --set ny=5 --set nt=3"
  [matmul]="--preset small"
  [jacobi2d]="--preset small"
  [diffusion3d]="--set nx=16 --set ny=16 --set nz=16 --set steps=4"
  [apsp]="--preset small"
  [iccg]="--preset small"
)
for workload in vector matmul jacobi2d diffusion3d apsp iccg; do
  # shellcheck disable=SC2086
  COLUMNS=100 "$acclab" ladder "$workload" ${sizes[$workload]} --reps 1 --quiet \
    > "$dir/$workload.txt" 2> "$dir/$workload.err"
  status=$?
  check "$workload: the ladder ran (status $status)" test $status -le 1
  long=$(awk '{ if (length > 100) n++ } END { print n+0 }' "$dir/$workload.txt")
  check "$workload: no line over 100 columns ($long)" test "$long" -eq 0
  check "$workload: the header names the variants" grep -q '^ *family *variant\|^ *variant' \
    "$dir/$workload.txt"
done
# The within-noise legend and the speedup columns stay.
check "vector: vs 1st and vs prev" grep -q 'vs 1st vs prev' "$dir/vector.txt"
# A narrower terminal is followed too: more columns left out, and said so.
COLUMNS=80 "$acclab" ladder vector ${sizes[vector]} --reps 1 --quiet > "$dir/narrow.txt" 2>&1
check "vector at COLUMNS=80: columns left out for it" grep -q 'left out to fit 80 columns' \
  "$dir/narrow.txt"
# --wide: every column and the notes on their rows, as before.
COLUMNS=100 "$acclab" ladder vector ${sizes[vector]} --reps 1 --quiet --wide > "$dir/wide.txt" 2>&1
check "--wide: the min, max and xfer columns" grep -q 'median  *min  *max  *xfer' "$dir/wide.txt"
check "--wide: the note column" grep -q 'status  *note' "$dir/wide.txt"
exit $((failures > 0))
