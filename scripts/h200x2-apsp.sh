#!/usr/bin/env bash
# apsp on the two-H200 machine: multidevice and cuda_blocked_multi over 1 and 2 GPUs (every
# result checked against Dijkstra on sampled rows; the decompositions are checked bitwise
# against the serial loop on small graphs first).
# Run from the repository root with the bundle (scripts/h200-common.sh):
#   OUT=some/folder scripts/h200x2-apsp.sh        (MULTIDEVICE=0 leaves multidevice out)
set -uo pipefail
source "$(dirname "$0")/h200-common.sh"
if ldd "$acclab" | grep "not found"; then exit 1; fi
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader

echo "== correctness on 1 and 2 GPUs (bitwise against the serial loop)"
for sets in "" "--set semiring=min-plus" "--set n=300 --set graph=seed" \
    "--set n=1000 --set edges_per_vertex=3 --set semiring=min-plus" "--set n=130"; do
  for devices in 1 2; do
    # shellcheck disable=SC2086
    "$acclab" run apsp $sets --set devices=$devices --variant 'multidevice,cuda_*' --reps 1 \
      --format json | statuses
  done
done
echo "== multidevice's successors on 1 and 2 GPUs (against the serial loop's)"
for sets in "--set n=3000" "--set n=1000 --set semiring=min-plus --set block=33"; do
  # shellcheck disable=SC2086
  "$acclab" run apsp $sets --set paths=1 --devices 1,2 --variant multidevice --reps 1 \
    --format json | statuses
done
if [[ ${MULTIDEVICE:-1} == 1 ]]; then
  # The four-phase multidevice (apsp_x2_N_multidevice_d1/d2.json are the first version's).
  for n in 8192 16384 32768; do
    reps=2
    [[ $n == 32768 ]] && reps=1
    run "apsp_x2_${n}_multidevice_blocked" run apsp --preset large --set n=$n \
      --variant multidevice --devices 1,2 --reps $reps
  done
fi
for n in 8192 16384 32768; do
  for devices in 1 2; do
    run "apsp_x2_${n}_cuda_blocked_multi_d${devices}" run apsp --preset large --set n=$n \
      --variant cuda_blocked_multi --set devices=$devices --reps 2
  done
done
