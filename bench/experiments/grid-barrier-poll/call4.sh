#!/usr/bin/env bash
# The fourth call: the right-to-left walk of call 3 written as a loop of its own around one
# helper for a lane's cells (acclab-colrev2), beside the build before it (acclab-poll), each
# also with alternate=0. Binaries in $EXP.
#   EXP=bundle/exp OUT=some/folder bench/experiments/grid-barrier-poll/call4.sh
set -uo pipefail
source "$(dirname "$0")/common.sh"

for round in 1 2; do
  for b in poll colrev2; do
    run "apspseed_${b}_$round" $b run apsp --preset seed --variant optimize_resident --reps 5
    run "apsp256_${b}_$round" $b run apsp --preset small --set n=256 --variant optimize_resident --reps 5
  done
done
for b in poll colrev2; do
  run "apspseed_${b}_alternate0" $b run apsp --preset seed --variant optimize_resident \
    --set alternate=0 --reps 5
  run "apsp8192_$b" $b run apsp --preset seed --set n=8192 --variant optimize_resident --reps 3
done
run apspseed_colrev2_minplus colrev2 run apsp --preset seed --variant optimize_resident \
  --set semiring=min-plus --reps 5
