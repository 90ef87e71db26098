#!/usr/bin/env bash
# apsp on a machine with two GPUs: multidevice and cuda_blocked_multi over 1 and 2 GPUs (every
# result checked against Dijkstra on sampled rows; the decompositions are checked bitwise
# against the serial loop on small graphs first, multidevice's successors too).
# Run from the repository root with the bundle (scripts/bench-common.sh):
#   OUT=some/folder scripts/bench-apsp-two-gpus.sh        (MULTIDEVICE=0 leaves multidevice out)
# SUFFIX names the build in the result files (default "lookahead": multidevice's lookahead on
# async queues, cuda_blocked_multi's B and C over warps). SIZES (default "8192 16384 32768")
# picks the large sizes, so that a call short of device time can keep the goals' 16384 and 32768.
set -uo pipefail
results=apsp machine_suffix=x2
source "$(dirname "$0")/bench-common.sh"
if ldd "$acclab" | grep "not found"; then exit 1; fi
suffix=${SUFFIX:-lookahead}
sizes=${SIZES:-8192 16384 32768}
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader

echo "== correctness on 1 and 2 GPUs (bitwise against the serial loop)"
for sets in "" "--set semiring=min-plus" "--set n=300 --set graph=seed" \
    "--set n=1000 --set edges_per_vertex=3 --set semiring=min-plus" "--set n=130" \
    "--set n=700 --set block=33" "--set n=2000"; do
  # shellcheck disable=SC2086
  "$acclab" run apsp $sets --devices 1,2 --variant 'multidevice,cuda_blocked_multi' --reps 1 \
    --format json | statuses
done
echo "== multidevice's successors on 1 and 2 GPUs (against the serial loop's)"
run "apsp_x2_multidevice_paths_3000_$suffix" run apsp --set n=3000 --set paths=1 --devices 1,2 \
  --variant multidevice --reps 1
run "apsp_x2_multidevice_paths_1000_minplus_block33_$suffix" run apsp --set n=1000 \
  --set semiring=min-plus --set block=33 --set paths=1 --devices 1,2 --variant multidevice --reps 1
if [[ ${MULTIDEVICE:-1} == 1 ]]; then
  run "apsp_x2_seed_multidevice_$suffix" run apsp --preset seed --variant multidevice \
    --devices 1,2 --reps 2
  for n in $sizes; do
    reps=2
    [[ $n == 32768 ]] && reps=1
    run "apsp_x2_${n}_multidevice_$suffix" run apsp --preset large --set n=$n \
      --variant multidevice --devices 1,2 --reps $reps
  done
  # The same two GPUs without lookahead (lookahead=auto looks ahead with two partitions).
  for n in $sizes; do
    [[ $n == 32768 ]] && continue
    run "apsp_x2_${n}_multidevice_${suffix}_off" run apsp --preset large --set n=$n \
      --variant multidevice --set devices=2 --set lookahead=off --reps 2
  done
fi
for n in $sizes; do
  run "apsp_x2_${n}_cuda_blocked_multi_$suffix" run apsp --preset large --set n=$n \
    --variant cuda_blocked_multi --devices 1,2 --reps 2
done
