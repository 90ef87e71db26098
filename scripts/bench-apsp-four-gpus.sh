#!/usr/bin/env bash
# apsp on a machine with four GPUs: multidevice and cuda_blocked_multi over 1, 2 and 4 GPUs, each
# size in one process (`--devices 1,2,4`). Every result is verified (8 sampled rows against
# Dijkstra) and the script checks that all counts gave the same bits (matrix_digest) as one GPU.
# Run from the repository root with the bundle (scripts/bench-common.sh):
#   OUT=some/folder PART=check|blocked|multidevice|multidevice_large scripts/bench-apsp-four-gpus.sh
# (PART=all, the default, runs them all: about 10 minutes, most of it multidevice at 32768.)
set -uo pipefail
results=apsp machine_suffix=x4
source "$(dirname "$0")/bench-common.sh"
if ldd "$acclab" | grep "not found"; then exit 1; fi
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
part=${PART:-all}

# same_bits FILE: every result in FILE verified, with one matrix digest.
same_bits() {
  python3 - "$1" <<'PY'
import json, sys
results = json.load(open(sys.argv[1]))["results"]
digests = {r["outputs"].get("matrix_digest") for r in results}
bad = [r["variant"] + " " + r["status"] for r in results if r["status"] != "verified"]
print(f"{sys.argv[1]}: {len(results)} results, {len(digests)} digest(s) {sorted(digests)}"
      + (f"; NOT VERIFIED: {bad}" if bad else ""))
PY
}

if [[ $part == all || $part == check ]]; then
  echo "== correctness on 1, 2 and 4 GPUs (bitwise against the serial loop)"
  for sets in "" "--set semiring=min-plus" "--set n=300 --set graph=seed" \
      "--set n=1000 --set edges_per_vertex=3 --set semiring=min-plus" "--set n=130"; do
    # shellcheck disable=SC2086
    "$acclab" run apsp $sets --devices 1,2,4 --variant 'multidevice,cuda_*' --reps 1 \
      --format json | statuses
  done
fi
if [[ $part == all || $part == blocked ]]; then
  for n in 8192 16384 32768; do
    run "apsp_x4_${n}_cuda_blocked_multi" run apsp --preset large --set n=$n \
      --variant cuda_blocked_multi --devices 1,2,4 --reps 2
    same_bits "$out/apsp_x4_${n}_cuda_blocked_multi.json"
  done
fi
if [[ $part == all || $part == multidevice ]]; then
  for n in 8192 16384; do
    run "apsp_x4_${n}_multidevice" run apsp --preset large --set n=$n \
      --variant multidevice --devices 1,2,4 --reps 1
    same_bits "$out/apsp_x4_${n}_multidevice.json"
  done
fi
if [[ $part == all || $part == multidevice_large ]]; then
  run "apsp_x4_32768_multidevice" run apsp --preset large --set n=32768 \
    --variant multidevice --devices 1,2,4 --reps 1
  same_bits "$out/apsp_x4_32768_multidevice.json"
fi
