#!/usr/bin/env bash
# The iccg workload's H200 measurements. From the repository root with the bundle
# (scripts/h200-common.sh):
#   OUT=some/folder scripts/h200-iccg.sh
# PART=check runs the correctness checks only; PART=main the ladder and the GPU steps;
# PART=colors the colour-count sweep.
set -uo pipefail
default_out=bench/results/h200/iccg
source "$(dirname "$0")/h200-common.sh"
if ldd "$acclab" | grep "not found"; then exit 1; fi
part=${PART:-all}
if [[ $part == all || $part == check ]]; then
  echo "== correctness on the GPU"
  for sets in "" "--set colors=0" "--set colors=7 --set nx=33 --set ny=9 --set nz=17" \
              "--set colors=-1 --set async=0" "--variant optimized_per_color --set async=1" \
              "--preset seed --variant optimized"; do
    # shellcheck disable=SC2086
    timeout 300 "$acclab" run iccg $sets --reps 1 --format json | statuses
  done
fi
if [[ $part == all || $part == main ]]; then
  # The course's run: -n 128 -c -20 (the seed preset); every step once, the CPU steps on the
  # machine's cores and on one.
  run iccg_seed_ladder ladder iccg --preset seed --reps 1
  # The fast GPU steps against each other and cuSPARSE, 5 solves each, and their knobs.
  run iccg_seed_gpu run iccg --preset seed --reps 5 \
      --variant optimized_per_color,optimized,cuda,cusparse
  # The knobs off: cuda's kernels one after the other; optimized_per_color on an async queue.
  run iccg_seed_knobs_off run iccg --preset seed --reps 3 --variant cuda --set cuda_overlap=0
  run iccg_seed_optimized_async run iccg --preset seed --reps 3 --variant optimized_per_color \
      --set async=1
  run iccg_large_gpu run iccg --preset large --reps 3 --variant optimized,cuda,cusparse
fi
if [[ $part == all || $part == colors ]]; then
  # Iterations against colours (CM-RCM), 128^3: the trade-off the course's ordering is about.
  for c in 2 5 10 20 50 100; do
    run "iccg_seed_colors_$c" run iccg --preset seed --reps 3 --set colors=-$c \
        --variant optimized,cuda,cusparse
  done
fi
