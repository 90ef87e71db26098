#!/usr/bin/env bash
# The steps that keep a whole solve in one construct (or, for cuda_temporal, several sweeps in
# one pass), on one GPU, each beside the step before it in one call: jacobi2d's
# acc_resident and cuda_temporal, vector's resident bandwidth steps, apsp's optimize_resident,
# diffusion3d's acc_tuned at 256^3. It writes every file to $OUT (by default
# bench/results/<card>/resident); the committed ones (resident_*) were sorted into each
# workload's bench/results/h200/<workload>/.
# Run on the GPU machine from the repository root, with the bundle from scripts/gpu-bundle.sh
# (scripts/bench-common.sh says how):
#   OUT=some/folder scripts/bench-resident.sh
# PACK=1 packs the results into one results.tgz (the device tool brings back at most 8 files).
# With PEER=path/to/jacobi (multi-gpu-programming-models' single_gpu, built for sm_90), that
# Jacobi runs on the seed's grid in the same call, as a peer to compare cuda with.
set -uo pipefail
results=resident
source "$(dirname "$0")/bench-common.sh"
if ldd "$acclab" | grep "not found"; then exit 1; fi

echo "== launch shapes of the resident constructs (GOMP_DEBUG=1)"
for args in "jacobi2d --preset seed --set iters=2 --variant acc_resident" \
    "apsp --set n=256 --variant optimize_resident" "vector --set nt=2 --variant '*_resident'"; do
  # shellcheck disable=SC2086
  eval GOMP_DEBUG=1 "$acclab" run $args --reps 1 2>&1 | grep "launch gangs" | grep -v reset |
    sed 's/.*kernel //' | sort | uniq -c
done
echo "== the barrier across gangs alone: steps of tiny problems"
run resident_barrier_jacobi2d_34 run jacobi2d --preset small --set rows=34 --set cols=34 \
  --set iters=10000 --variant acc_tuned,acc_resident,cuda --reps 5
run resident_barrier_apsp_256 run apsp --preset small --set n=256 \
  --variant optimize,optimize_resident --reps 5
run resident_jacobi2d_seed run jacobi2d --preset seed \
  --variant 'acc_tuned,acc_resident,cuda,cuda_temporal' --reps 5
for sweeps in 2 3; do
  run resident_jacobi2d_seed_sweeps$sweeps run jacobi2d --preset seed --variant cuda_temporal \
    --set cuda_sweeps=$sweeps --reps 5
done
run resident_jacobi2d_large run jacobi2d --preset large \
  --variant 'acc_tuned,acc_resident,cuda,cuda_temporal' --reps 3
run resident_jacobi2d_tol run jacobi2d --preset small --set tol=1e-5 --set iters=1000000 \
  --variant 'acc_gang_vector,acc_resident,cuda,cuda_temporal' --reps 3
if [[ -n ${PEER:-} ]]; then
  echo "== multi-gpu-programming-models single_gpu, the seed's grid, 100 sweeps" |
    tee "$out/peer_single_gpu.txt"
  "$PEER" -nx 1024 -ny 8192 -niter 100 2>&1 | tee -a "$out/peer_single_gpu.txt"
fi
run resident_vector_seed run vector --preset seed \
  --variant 'triad_acc,triad_acc_resident,triad_cuda,dot_acc_partials,dot_acc_resident,dot_cuda' \
  --reps 5
run resident_apsp_seed run apsp --preset seed --variant 'optimize,optimize_resident,cuda_blocked' \
  --reps 3
run resident_diffusion3d_256 run diffusion3d --preset large --variant 'acc_flat,acc_tuned,cuda' --reps 5
[[ ${PACK:-0} == 1 ]] && pack_out
