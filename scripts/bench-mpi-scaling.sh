#!/usr/bin/env bash
# jacobi2d's and diffusion3d's MPI steps across the GPUs of one machine, the scaling runs: one
# rank a GPU, 1 to N ranks. Run from the repository root with the bundle (scripts/bench-common.sh)
# on a machine with two or four GPUs:
#   OUT=bench/results/h200x4/mpi scripts/bench-mpi-scaling.sh
# (without OUT: bench/results/<card>x<GPUS>/mpi, <card>xN where GPUS is not given).
# GPUS (default: nvidia-smi's count) sets N. Strong scaling: jacobi2d's `large` grid (16384^2)
# and diffusion3d's 512^3 over 1, 2, 4 ranks; weak scaling: that grid per GPU (jacobi2d 16384
# rows more a rank in row slabs, diffusion3d 512 planes more a rank in z slabs). The three steps
# (mpi_acc_staged, mpi_acc_overlap, mpi_cuda) side by side in each run; every result verified
# (rank 0 gathers the grid) and naming its halo path and communication share. The speedups and
# efficiencies are printed against the 1-rank run of the same step in the same call (one run
# for both: at one rank the weak grid is the strong one).
# WORKLOADS (default "jacobi2d diffusion3d") picks the workloads and STEPS the steps, so that a
# call short of time can split them (and a machine without a GPU can try the script).
# DRY=1 checks the script on a one-GPU machine: small grids, one repetition, GPUS=2 unless
# set, the ranks sharing the GPU (halos host-staged): the mechanics, not the figures.
set -uo pipefail
results=mpi machine_suffix=x${GPUS:-N}  # xN where GPUS is left to nvidia-smi
source "$(dirname "$0")/bench-common.sh"
multi_gpu_setup
steps=${STEPS:-mpi_cuda,mpi_acc_overlap,mpi_acc_staged}
if [[ $dry == 1 ]]; then
  reps=1 jacobi_rows=2048 jacobi_size=(--set rows=2048 --set cols=2048) cube=96
else
  reps=5 jacobi_rows=16384 jacobi_size=() cube=512
fi
for w in ${WORKLOADS:-jacobi2d diffusion3d}; do
  for ((np = 1; np <= gpus; np *= 2)); do
    if [[ $w == jacobi2d ]]; then
      launch "${w}_strong_np$np" $np run $w --preset large "${jacobi_size[@]}" --reps $reps \
        --variant "$steps"
      ((np > 1)) && launch "${w}_weak_np$np" $np run $w --preset large "${jacobi_size[@]}" \
        --set rows=$((jacobi_rows * np)) --set proc_grid=${np}x1 --reps $reps --variant "$steps"
    else
      launch "${w}_strong_np$np" $np run $w --preset large --set nx=$cube --set ny=$cube \
        --set nz=$cube --reps $reps --variant "$steps"
      ((np > 1)) && launch "${w}_weak_np$np" $np run $w --preset large --set nx=$cube \
        --set ny=$cube --set nz=$((cube * np)) --set proc_grid=1x1x$np --reps $reps \
        --variant "$steps"
    fi
  done
done
python3 - "$out" "$gpus" ${WORKLOADS:-jacobi2d diffusion3d} <<'PY'
import json, sys
out, gpus, workloads = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
def results(name):
    return {r["variant"]: r for r in json.load(open(f"{out}/{name}.json"))["results"]}
for w in workloads:
    for kind in ("strong", "weak"):
        one = results(f"{w}_strong_np1")
        np = 1
        while np <= gpus:
            for step, r in results(f"{w}_{'strong' if np == 1 else kind}_np{np}").items():
                t1, t = one[step]["time_s"]["median"], r["time_s"]["median"]
                m = r.get("mpi") or {}
                figure = f"speedup {t1 / t:.2f}x" if kind == "strong" else f"efficiency {t1 / t:.2f}"
                print(f"{w} {kind} np {np} {step}: {r['status']} {t * 1e3:.1f} ms, {figure}, "
                      f"halos {m.get('halo_path')}, exchange {100 * m.get('exchange_share', 0):.1f}%")
            np *= 2
PY
pack_out
