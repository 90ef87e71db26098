#!/usr/bin/env bash
# apsp's MPI steps across the GPUs of one machine (issue 23): one rank a GPU, 1 to N ranks.
# Run from the repository root with the bundle (scripts/h200-common.sh) on the machine with two
# or four H200s:
#   OUT=bench/results/h200x4/apsp scripts/h200xN-apsp-mpi.sh
# GPUS (default: nvidia-smi's count) sets N. Strong scaling: n = 32768 (multidevice's and
# cuda_blocked_multi's largest measured) over 1, 2, 4 ranks, MPI_Dims_create's grids (2x1,
# 2x2); weak scaling: n^2 per rank held (n = 16384 sqrt(ranks), rounded to blocks). mpi_acc
# and mpi_cuda, against multidevice and cuda_blocked_multi on as many GPUs in the same call.
# Every result is verified (rank 0 gathers the matrix: bitwise the serial loop up to n = 4096,
# Dijkstra rows above) and names its panel path (mpi_cuda: nccl, a GPU a rank) and broadcast
# share.
# Not run yet: the machines with several H200s were not lent when it was written.
set -uo pipefail
default_out=bench/results/h200xN/apsp
source "$(dirname "$0")/h200-common.sh"
if ldd "$acclab" | grep "not found"; then exit 1; fi
gpus=${GPUS:-$(nvidia-smi --list-gpus | wc -l)}
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
for ((np = 1; np <= gpus; np *= 2)); do
  launch "mpi_strong_32768_np$np" $np run apsp --set n=32768 --set graph=random --reps 3 \
    --variant mpi_acc,mpi_cuda
  run "single_process_32768_d$np" run apsp --set n=32768 --set graph=random --reps 3 \
    --variant multidevice,cuda_blocked_multi --set devices=$np
  n=$(python3 -c "import math; print(int(16384 * math.sqrt($np)) // 64 * 64)")
  launch "mpi_weak_np$np" $np run apsp --set n=$n --set graph=random --reps 3 \
    --variant mpi_acc,mpi_cuda
done
python3 - "$out" "$gpus" <<'PY'
import json, sys
out, gpus = sys.argv[1], int(sys.argv[2])
def results(name):
    return {r["variant"]: r for r in json.load(open(f"{out}/{name}.json"))["results"]}
# Each MPI step against the single-process step that runs the same kernels on as many GPUs.
peer = {"mpi_acc": "multidevice", "mpi_cuda": "cuda_blocked_multi"}
one = results("mpi_strong_32768_np1")
np = 1
while np <= gpus:
    strong, alone = results(f"mpi_strong_32768_np{np}"), results(f"single_process_32768_d{np}")
    weak = results(f"mpi_weak_np{np}")
    for step, of in peer.items():
        r, w = strong[step], weak[step]
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
