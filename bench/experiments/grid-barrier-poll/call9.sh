#!/usr/bin/env bash
# The ninth call, after the gate of the landed shape (6 columns a lane, 5 with successors;
# acclab-cells6) beside main before it (0c13ac6; acclab-main).
#   EXP=bundle/exp OUT=some/folder bench/experiments/grid-barrier-poll/call9.sh
set -uo pipefail
source "$(dirname "$0")/common.sh"

for round in 1 2; do
  for b in main cells6; do
    run "apspseed_${b}_$round" $b run apsp --preset seed --variant optimize_resident --reps 5
    run "apspseedpaths_${b}_$round" $b run apsp --preset seed --set paths=1 \
      --variant optimize_resident --reps 3
  done
done
for b in main cells6; do
  run "apsp8192_$b" $b run apsp --preset large --set n=8192 --variant optimize_resident --reps 3
done
summarize
