#!/usr/bin/env bash
# jacobi2d's MPI steps across the GPUs of one machine (issue 26): one rank a GPU, 1 to N ranks.
# Run from the repository root with the bundle (scripts/h200-common.sh) on the machine with two
# or four H200s:
#   OUT=bench/results/h200x4/jacobi2d scripts/h200xN-mpi.sh
# GPUS (default: nvidia-smi's count) sets N. Strong scaling: the `large` grid (16384^2) over
# 1, 2, 4 ranks; weak scaling: a grid per GPU (16384 rows more a rank, row slabs). Every result
# is verified (rank 0 gathers the grid); each names its halo path (NCCL here: one GPU a rank).
# The speedups are printed against the 1-rank run of the same step in the same call.
# Not run yet: the machines with several H200s were not lent when it was written.
set -uo pipefail
default_out=bench/results/h200xN/jacobi2d
source "$(dirname "$0")/h200-common.sh"
if ldd "$acclab" | grep "not found"; then exit 1; fi
gpus=${GPUS:-$(nvidia-smi --list-gpus | wc -l)}
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
steps=mpi_cuda,mpi_acc_overlap,mpi_acc_staged
for ((np = 1; np <= gpus; np *= 2)); do
  launch "mpi_strong_large_np$np" $np run jacobi2d --preset large --reps 5 --variant "$steps"
  launch "mpi_weak_np$np" $np run jacobi2d --preset large --set rows=$((16384 * np)) \
    --set proc_grid=${np}x1 --reps 5 --variant "$steps"
done
python3 - "$out" "$gpus" <<'PY'
import json, sys
out, gpus = sys.argv[1], int(sys.argv[2])
def results(name):
    return {r["variant"]: r for r in json.load(open(f"{out}/{name}.json"))["results"]}
for kind in ("strong_large", "weak"):
    one = results(f"mpi_{kind}_np1")
    np = 2
    while np <= gpus:
        for step, r in results(f"mpi_{kind}_np{np}").items():
            t1, t = one[step]["time_s"]["median"], r["time_s"]["median"]
            m = r.get("mpi") or {}
            figure = f"speedup {t1 / t:.2f}x" if kind.startswith("strong") else f"efficiency {t1 / t:.2f}"
            print(f"{kind} np {np} {step}: {r['status']} {t * 1e3:.1f} ms, {figure}, halos "
                  f"{m.get('halo_path')}, exchange {100 * m.get('exchange_share', 0):.1f}%")
        np *= 2
PY
