#!/usr/bin/env bash
# The apsp workload's measurements on one GPU, as committed in bench/results/h200/apsp/ (an
# H100's go to bench/results/h100/apsp/: scripts/bench-common.sh).
# Run on the GPU machine from the repository root, with the bundle from scripts/gpu-bundle.sh
# (scripts/bench-common.sh says how):
#   OUT=some/folder scripts/bench-apsp.sh
# serial is left out above the small preset: 4096^3 relaxations on one core take minutes (the
# verification compares with the same loop run over all cores).
set -uo pipefail
results=apsp
source "$(dirname "$0")/bench-common.sh"
if ldd "$acclab" | grep "not found"; then exit 1; fi

echo "== correctness on the GPU"
for sets in "" "--set semiring=min-plus" "--set graph=seed --set n=300 --set block=32" \
    "--set n=1000 --set edges_per_vertex=3 --set semiring=min-plus"; do
  # shellcheck disable=SC2086
  "$acclab" run apsp $sets --reps 1 --format json | statuses
done
echo "== the seed's 20 test lines are printed by: acclab apsp --seed-graph N (see docs/apsp.md)"
run apsp_seed ladder apsp --preset seed --variant 'multicore,managed,optimize,multidevice,cuda_blocked' \
  --reps 2
run apsp_8192 run apsp --preset large --set n=8192 --variant 'optimize,multidevice,cuda_blocked' \
  --reps 2
run apsp_16384 run apsp --preset large --variant 'optimize,cuda_blocked' --reps 1
