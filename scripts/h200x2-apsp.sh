#!/usr/bin/env bash
# apsp on the two-H200 machine: multidevice over 1 and 2 GPUs at n = 8192 and 16384 (every
# result checked against Dijkstra on sampled rows; the two runs of one size should also give the
# same matrix, which the bitwise host tests check for the decomposition).
# Run from the repository root with the bundle (scripts/h200-common.sh):
#   OUT=some/folder scripts/h200x2-apsp.sh
set -uo pipefail
source "$(dirname "$0")/h200-common.sh"
if ldd "$acclab" | grep "not found"; then exit 1; fi
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
for n in 8192 16384; do
  for devices in 1 2; do
    run "apsp_x2_${n}_multidevice_d${devices}" run apsp --preset large --set n=$n \
      --variant multidevice --set devices=$devices --reps 1
  done
done
