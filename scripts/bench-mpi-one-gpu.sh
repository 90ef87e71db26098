#!/usr/bin/env bash
# The MPI steps of jacobi2d or diffusion3d (mpi_openmp, mpi_acc_staged, mpi_acc_overlap,
# mpi_cuda) on a one-GPU machine. From the repository root with the bundle
# (scripts/bench-common.sh):
#   [WORKLOAD=jacobi2d|diffusion3d] OUT=some/folder scripts/bench-mpi-one-gpu.sh
# 1. One rank costs nothing: on `large`, mpi_cuda against cuda and mpi_acc_overlap /
#    mpi_acc_staged against acc_tuned, in one process, started alone and under mpirun -np 1.
# 2. 2 and 4 ranks sharing the GPU, as they are (halos host-staged: NCCL takes one GPU a rank).
# Scaling over several GPUs: scripts/bench-mpi-scaling.sh on the machines with two or four.
set -uo pipefail
workload=${WORKLOAD:-jacobi2d}
case $workload in
  jacobi2d | diffusion3d) ;;
  *) echo "WORKLOAD=$workload: expected jacobi2d or diffusion3d" >&2; exit 2 ;;
esac
results=$workload
source "$(dirname "$0")/bench-common.sh"
# --bind-to none: Open MPI binds each rank to one core by default, leaving mpi_openmp one thread.
mpirun_as_root=(mpirun --allow-run-as-root --oversubscribe -q --bind-to none)
steps=acc_tuned,cuda,mpi_acc_staged,mpi_acc_overlap,mpi_cuda
run mpi_large_one_process run $workload --preset large --reps 5 --variant "$steps"
for np in 1 2 4; do
  name=mpi_large_np$np
  echo "$name.json: mpirun -np $np acclab run $workload --preset large --reps 5 --variant 'mpi_*' --format json --out $name.json" >> "$out/commands.txt"
  echo "== mpirun -np $np acclab run $workload --preset large --variant 'mpi_*'"
  "${mpirun_as_root[@]}" -np $np "$acclab" run $workload --preset large --reps 5 \
    --variant 'mpi_*' --format json --out "$out/$name.json"
  python3 scripts/results-table.py "$out/$name.json"
done
# Each step's time against its one-process counterpart, and what the ranks reported.
python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
def results(name):
    return {r["variant"]: r for r in json.load(open(f"{out}/{name}.json"))["results"]}
alone = results("mpi_large_one_process")
base = {"mpi_cuda": "cuda", "mpi_acc_overlap": "acc_tuned", "mpi_acc_staged": "acc_tuned"}
for step, of in base.items():
    print(f"{step} alone {alone[step]['time_s']['median'] * 1e3:.2f} ms against {of} "
          f"{alone[of]['time_s']['median'] * 1e3:.2f} ms: "
          f"{alone[step]['time_s']['median'] / alone[of]['time_s']['median']:.3f}x")
for np in (1, 2, 4):
    for step, r in results(f"mpi_large_np{np}").items():
        if step not in base:  # mpi_openmp: no GPU counterpart
            continue
        m = r.get("mpi") or {}
        print(f"np {np} {step}: {r['status']} {r['time_s']['median'] * 1e3:.2f} ms "
              f"({r['time_s']['median'] / alone[base[step]]['time_s']['median']:.3f}x {base[step]}), "
              f"grid {m.get('proc_grid')}, halos {m.get('halo_path')}, "
              f"exchange {100 * m.get('exchange_share', 0):.1f}%, rank medians {m.get('rank_seconds')}")
PY
