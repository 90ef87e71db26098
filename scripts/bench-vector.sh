#!/usr/bin/env bash
# The vector workload's measurements on one GPU, as committed in bench/results/h200/vector/ (an
# H100's go to bench/results/h100/: scripts/bench-common.sh).
# Run on the GPU machine from the repository root, with the bundle from scripts/gpu-bundle.sh
# (scripts/bench-common.sh says how):
#   OUT=some/folder scripts/bench-vector.sh
set -uo pipefail
results=vector
source "$(dirname "$0")/bench-common.sh"
"$acclab" info --probe --format json > "$out/info.json"
run vector_bandwidth_large run vector --preset large --variant 'triad_*,dot_*' --reps 5
run vector_bandwidth_seed run vector --preset seed --variant 'triad_*,dot_*' --reps 5
[[ ${SEED_LADDER:-1} == 1 ]] && run vector_ladder_seed_nt10 ladder vector --preset seed --set nt=10 --reps 1
[[ ${FULL_SEED_LADDER:-0} == 1 ]] && run vector_ladder_seed ladder vector --preset seed \
  --variant 'original,acc_loop,acc_data,acc_present,acc_reduction,cuda' --reps 1
