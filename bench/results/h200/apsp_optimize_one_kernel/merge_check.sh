#!/usr/bin/env bash
set -uo pipefail
source scripts/h200-common.sh
for sets in "--set n=1030 --set unroll=2" "--set n=4096 --set semiring=min-plus" \
    "--set n=1100 --set unroll=2 --set paths=1" "--set n=3000 --set paths=1 --set semiring=min-plus" "--set n=2100 --set unroll=8 --set paths=1"; do
  # shellcheck disable=SC2086
  echo "$sets: $("$acclab" run apsp $sets --variant optimize --reps 1 --format json | statuses)"
done
for b in prev merged; do
  bin=./bundle/acclab_prev; [[ $b == merged ]] && bin=./bundle/acclab
  acclab=$bin run apsp_seed_optimize_$b run apsp --preset seed --variant optimize --reps 3
  acclab=$bin run apsp_paths_8192_optimize_$b run apsp --preset large --set n=8192 --set paths=1 --variant optimize --reps 1
done
