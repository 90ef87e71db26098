#!/usr/bin/env bash
# The third call: apsp optimize_resident walking every other step's columns right to left
# (acclab-colrev) beside the build before it (acclab-poll), and ncu's speed-of-light and memory
# sections of its construct. Binaries in $EXP.
#   EXP=bundle/exp OUT=some/folder bench/experiments/grid-barrier-poll/call3.sh
set -uo pipefail
source "$(dirname "$0")/common.sh"

for round in 1 2; do
  for b in poll colrev; do
    run "apspseed_${b}_$round" $b run apsp --preset seed --variant optimize_resident --reps 5
    run "apsp256_${b}_$round" $b run apsp --preset small --set n=256 --variant optimize_resident --reps 5
  done
done
run apspseed_colrev_alternate0 colrev run apsp --preset seed --variant optimize_resident \
  --set alternate=0 --reps 5
run apspseed_colrev_minplus colrev run apsp --preset seed --variant optimize_resident \
  --set semiring=min-plus --reps 5
for b in poll colrev; do
  run "apsp8192_$b" $b run apsp --preset seed --set n=8192 --variant optimize_resident --reps 3
done
echo "ncu_colrev.txt: ncu --section SpeedOfLight --section MemoryWorkloadAnalysis --kernel-name regex:all_steps --launch-count 1 acclab-colrev run apsp --preset seed --variant optimize_resident --reps 1" >> "$out/commands.txt"
ncu --section SpeedOfLight --section MemoryWorkloadAnalysis --kernel-name regex:all_steps \
  --launch-count 1 "$exp/acclab-colrev" run apsp --preset seed --variant optimize_resident \
  --reps 1 > "$out/ncu_colrev.txt" 2>&1
echo "ncu rc=$?"
