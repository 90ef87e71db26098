#!/usr/bin/env bash
# The eighth call: apsp optimize_resident without the clamps in whole batches, with 5, 6 and 7
# columns a lane (acclab-c5, -c6, -c7: branch wip/cells) beside main (0c13ac6, 4 columns,
# clamped; acclab-main). More columns a lane, more loads in flight a warp; 6 and 7 need 70 and
# 72 registers with successors, over the 64 that two gangs of 16 warps allow, so they run
# without paths only.
#   EXP=bundle/exp OUT=some/folder bench/experiments/grid-barrier-poll/call8.sh
set -uo pipefail
source "$(dirname "$0")/common.sh"

for round in 1 2; do
  for b in main c5 c6 c7; do
    run "apspseed_${b}_$round" $b run apsp --preset seed --variant optimize_resident --reps 5
  done
done
for b in main c5; do
  run "apspseedpaths_$b" $b run apsp --preset seed --set paths=1 --variant optimize_resident \
    --reps 3
done
for b in main c5 c6 c7; do
  run "apsp8192_$b" $b run apsp --preset large --set n=8192 --variant optimize_resident --reps 3
  run "apspseed_${b}_minplus" $b run apsp --preset seed --variant optimize_resident \
    --set semiring=min-plus --reps 5
  run "apsp300_$b" $b run apsp --preset small --set n=300 --variant optimize_resident --reps 3
done
summarize
