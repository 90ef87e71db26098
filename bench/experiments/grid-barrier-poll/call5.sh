#!/usr/bin/env bash
# The fifth call: every other step's columns mirrored inside the landed loop (column n - 1 - j
# for j, `columns-mirrored.patch`; acclab-colflip) beside aff4b2e itself (acclab-old).
#   EXP=bundle/exp OUT=some/folder bench/experiments/grid-barrier-poll/call5.sh
set -uo pipefail
source "$(dirname "$0")/common.sh"

for round in 1 2; do
  for b in old colflip; do
    run "apspseed_${b}_$round" $b run apsp --preset seed --variant optimize_resident --reps 5
  done
done
run apspseed_colflip_alternate0 colflip run apsp --preset seed --variant optimize_resident \
  --set alternate=0 --reps 5
run apspseed_colflip_minplus colflip run apsp --preset seed --variant optimize_resident \
  --set semiring=min-plus --reps 5
run apsp300_colflip colflip run apsp --preset small --set n=300 --variant optimize_resident --reps 3
