#!/usr/bin/env bash
# The iccg workload's H200 measurements (not yet run: the OpenACC steps are verified on the host
# only so far). From the repository root with the bundle (scripts/h200-common.sh):
#   OUT=some/folder scripts/h200-iccg.sh
set -uo pipefail
source "$(dirname "$0")/h200-common.sh"
if ldd "$acclab" | grep "not found"; then exit 1; fi
echo "== correctness on the GPU"
for sets in "" "--set colors=0" "--set colors=7 --set nx=33 --set ny=9 --set nz=17"; do
  # shellcheck disable=SC2086
  "$acclab" run iccg $sets --reps 1 --format json | statuses
done
# The course's run: -n 128 -c -20 (the seed preset), the CPU steps on 16 cores and one.
run iccg_seed ladder iccg --preset seed --reps 2
