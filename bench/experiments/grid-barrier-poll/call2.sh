#!/usr/bin/env bash
# The second call: the barrier's fences as fence.acq_rel.gpu against membar.gl, and apsp
# optimize_resident with the pivot row held in registers (a gang's warps split the columns of
# the gang's rows), each beside the build before it; ncu's speed-of-light section of the
# construct, before and after. Binaries in $EXP (acclab-poll, acclab-acqrel, acclab-cols*).
#   EXP=bundle/exp OUT=some/folder bench/experiments/grid-barrier-poll/call2.sh
set -uo pipefail
source "$(dirname "$0")/common.sh"

for round in 1 2; do
  for b in poll acqrel; do
    run "apsp256_${b}_$round" $b run apsp --preset small --set n=256 --variant optimize_resident --reps 5
    run "apspseed_${b}_$round" $b run apsp --preset seed --variant optimize_resident --reps 5
    run "iccgseed_${b}_$round" $b run iccg --preset seed --variant optimized --reps 3
    run "jacobi34_${b}_$round" $b run jacobi2d --preset small --set rows=34 --set cols=34 \
      --set iters=10000 --variant acc_resident --reps 5
  done
  run "apspseed_cols4w16_g1_$round" cols4w16 run apsp --preset seed --variant optimize_resident \
    --set gangs_per_sm=1 --reps 5
  run "apspseed_poll_g1_$round" poll run apsp --preset seed --variant optimize_resident \
    --set gangs_per_sm=1 --reps 5
  for b in cols4w12 cols2w12; do
    run "apsp256_${b}_$round" $b run apsp --preset small --set n=256 --variant optimize_resident --reps 5
    run "apspseed_${b}_$round" $b run apsp --preset seed --variant optimize_resident --reps 5
  done
done
for b in poll cols4w12; do
  run "apsp8192_$b" $b run apsp --preset seed --set n=8192 --variant optimize_resident --reps 3
done
for b in poll cols4w12; do
  echo "ncu_$b.txt: ncu --section SpeedOfLight --kernel-name regex:all_steps --launch-count 1 acclab-$b run apsp --preset seed --variant optimize_resident --reps 1" >> "$out/commands.txt"
  ncu --section SpeedOfLight --section MemoryWorkloadAnalysis --kernel-name regex:all_steps \
    --launch-count 1 "$exp/acclab-$b" run apsp --preset seed --variant optimize_resident \
    --reps 1 > "$out/ncu_$b.txt" 2>&1
  echo "ncu $b rc=$?"
done
