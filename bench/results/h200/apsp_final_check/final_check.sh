#!/usr/bin/env bash
set -uo pipefail
source scripts/h200-common.sh
for sets in "--set n=1030 --set unroll=2" "--set n=2500" "--set n=4096 --set semiring=min-plus" "--set n=600 --set unroll=1"; do
  # shellcheck disable=SC2086
  echo "$sets: $("$acclab" run apsp $sets --variant optimize,managed,multidevice --reps 1 --format json | statuses)"
done
for sets in "--set n=2100 --set unroll=8" "--set n=3000 --set semiring=min-plus" "--set n=1030 --set devices=3 --set share_gpus=1 --set block=7"; do
  # shellcheck disable=SC2086
  echo "paths $sets: $("$acclab" run apsp --set paths=1 $sets --variant optimize,multidevice --reps 1 --format json | statuses)"
done
run apsp_16384_final run apsp --preset large --variant optimize,multidevice --reps 1
