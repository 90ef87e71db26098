#!/usr/bin/env bash
# apsp's MPI steps (2D block-cyclic Floyd-Warshall) across the GPUs of one machine, the scaling
# runs: one rank a GPU, 1 to N ranks. Run from the repository root with the bundle
# (scripts/bench-common.sh) on a machine with two or four GPUs:
#   OUT=bench/results/h200x4/apsp scripts/bench-apsp-mpi-scaling.sh
# (without OUT: bench/results/<card>x<GPUS>/apsp, <card>xN where GPUS is not given).
# GPUS (default: nvidia-smi's count) sets N. Strong scaling: n = 32768 (multidevice's and
# cuda_blocked_multi's largest measured) over 1, 2, 4 ranks, MPI_Dims_create's grids (2x1,
# 2x2); weak scaling: n^2 per rank held (n = 16384 sqrt(ranks), rounded to blocks). mpi_acc
# and mpi_cuda, against multidevice and cuda_blocked_multi on as many GPUs in the same call.
# Every result is verified (rank 0 gathers the matrix: bitwise the serial loop up to n = 4096,
# Dijkstra rows above) and names its panel path (mpi_cuda: nccl, a GPU a rank) and broadcast
# share.
# PART=largest instead solves the seed's random graph of LARGEST vertices with `acclab apsp
# --seed-graph` and VARIANT (default mpi_cuda) on N ranks and then N/2 (RANKS overrides: "4 2"),
# the matrix never gathered, and once alone with cuda_blocked: each run
# prints its matrix_digest (rank 0 adds up the ranks' share sums) and its Dijkstra check of
# sampled rows, and the digests must agree. LARGEST defaults to 200000 (160 GB of distances, 40
# GB a GPU on four; the MPI steps index in 64 bits), past one H200's memory: the single-process
# run is then skipped. At that size a run takes minutes (n^3 = 8e15 relaxations, about 5 min on
# four H200s, 10 on two): one call a rank count (RANKS=4, then RANKS=2) stays within a call's
# 600 s.
# DRY=1 checks the script on a one-GPU machine: small sizes, one repetition, GPUS=2 unless
# set, the ranks sharing the GPU: the mechanics, not the figures.
set -uo pipefail
results=apsp machine_suffix=x${GPUS:-N}  # xN where GPUS is left to nvidia-smi
source "$(dirname "$0")/bench-common.sh"
multi_gpu_setup

if [[ ${PART:-scaling} == largest ]]; then
  if [[ $dry == 1 ]]; then n=${LARGEST:-3000}; else n=${LARGEST:-200000}; fi
  ranks=${RANKS:-$gpus $((gpus / 2))} variant=${VARIANT:-mpi_cuda}
  # cuda_blocked on one GPU needs the matrix and its initial state there (8 n^2 bytes).
  gpu_mib=$(nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits | head -1)
  if ((8 * n * n / 1048576 < gpu_mib)); then
    echo "== the seed's graph of $n vertices, single process (cuda_blocked)"
    echo "largest_n${n}_alone.txt: acclab apsp --seed-graph $n --variant cuda_blocked" >> "$out/commands.txt"
    "$acclab" apsp --seed-graph "$n" --variant cuda_blocked | tee "$out/largest_n${n}_alone.txt"
  else
    echo "== $n vertices: past one GPU's memory, no single-process run"
  fi
  for np in $ranks; do
    ((np >= 1)) || continue
    name=largest_n${n}_np$np
    echo "$name.txt: mpirun -np $np acclab apsp --seed-graph $n --variant $variant" >> "$out/commands.txt"
    echo "== mpirun -np $np acclab apsp --seed-graph $n --variant $variant"
    start=$SECONDS
    mpirun --allow-run-as-root -q --bind-to none -np "$np" "$acclab" apsp --seed-graph "$n" \
      --variant "$variant" > "$out/$name.txt" 2> "$out/$name.err"
    echo "exit $? after $((SECONDS - start)) s"
    cat "$out/$name.txt" "$out/$name.err"
  done
  echo "== the digests (one value expected)"
  grep -h "matrix digest" "$out"/largest_n"${n}"_*.txt | sort | uniq -c
  pack_out
  exit 0
fi

if [[ $dry == 1 ]]; then
  reps=1 strong=2048 weak_base=1024 share=(--set share_gpus=1)
else
  reps=3 strong=32768 weak_base=16384 share=()
fi
for ((np = 1; np <= gpus; np *= 2)); do
  launch "mpi_strong_${strong}_np$np" $np run apsp --set n=$strong --set graph=random \
    --reps $reps --variant mpi_acc,mpi_cuda
  run "single_process_${strong}_d$np" run apsp --set n=$strong --set graph=random --reps $reps \
    --variant multidevice,cuda_blocked_multi --set devices=$np "${share[@]}"
  n=$(python3 -c "import math; print(int($weak_base * math.sqrt($np)) // 64 * 64)")
  launch "mpi_weak_np$np" $np run apsp --set n=$n --set graph=random --reps $reps \
    --variant mpi_acc,mpi_cuda
done
python3 - "$out" "$gpus" "$strong" <<'PY'
import json, sys
out, gpus, strong = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def results(name):
    return {r["variant"]: r for r in json.load(open(f"{out}/{name}.json"))["results"]}
# Each MPI step against the single-process step that runs the same kernels on as many GPUs.
peer = {"mpi_acc": "multidevice", "mpi_cuda": "cuda_blocked_multi"}
one = results(f"mpi_strong_{strong}_np1")
np = 1
while np <= gpus:
    strong_r, alone = results(f"mpi_strong_{strong}_np{np}"), results(f"single_process_{strong}_d{np}")
    weak = results(f"mpi_weak_np{np}")
    for step, of in peer.items():
        r, w = strong_r[step], weak[step]
        t, m = r["time_s"]["median"], r.get("mpi") or {}
        print(f"{step} strong np {np} ({m.get('proc_grid')}): {r['status']} {t:.2f} s, speedup "
              f"{one[step]['time_s']['median'] / t:.2f}x, {of} on {np} GPUs "
              f"{alone[of]['time_s']['median']:.2f} s, broadcasts "
              f"{100 * m.get('broadcast_share', 0):.1f}% ({m.get('panel_path')})")
        print(f"{step} weak np {np} (n = {w['params']['n']}): {w['status']} "
              f"{w['time_s']['median']:.2f} s, broadcasts "
              f"{100 * (w.get('mpi') or {}).get('broadcast_share', 0):.1f}%")
    np *= 2
PY
pack_out
