#!/usr/bin/env bash
# acclab tune on the GPU machine for the steps whose launch shapes are declared tunings (issue 74's
# table and the resident steps of issue 73), at one preset, one tune process a step, each report
# as json. Run from the repository root with the bundle unpacked:
#   OUT=folder bash scripts/gpu-tune.sh PRESET [BUDGET_S [UNTIL_S]]
# BUDGET_S (default 20): seconds a step, no point starts after them. UNTIL_S (default none):
# seconds since the script started after which no further step starts, so that a call of
# limited length keeps what it measured.
set -u
preset=${1:?usage: OUT=folder bash scripts/gpu-tune.sh PRESET [BUDGET_S [UNTIL_S]]}
budget=${2:-20}
until_s=${3:-0}
out=${OUT:?OUT names the folder for the reports}
export LD_LIBRARY_PATH=$PWD/bundle:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
acclab=bundle/acclab
start=$SECONDS
# workload step: the steps whose shape sets their speed, OpenACC and OpenMP target resident
# first (the defaults these searches may change), then CUDA.
steps=(
  "jacobi2d acc_resident" "jacobi2d omp_target_resident"
  "diffusion3d acc_tuned" "diffusion3d omp_target_resident"
  "vector triad_acc_resident" "vector dot_acc_resident"
  "vector triad_omp_target_resident" "vector dot_omp_target_resident"
  "apsp omp_target_resident" "iccg optimized" "iccg omp_target_resident"
  "iccg cuda" "diffusion3d cuda" "apsp cuda_blocked" "matmul cuda_tiled"
)
for entry in "${steps[@]}"; do
  read -r workload step <<< "$entry"
  if (( until_s > 0 && SECONDS - start > until_s )); then
    echo "== $workload $step ($preset): not started, past ${until_s}s" | tee -a "$out/tune_commands.txt"
    continue
  fi
  name="tune_${preset}_${workload}_${step}"
  args=(tune "$workload" --variant "$step" --preset "$preset" --reps 3 --budget "$budget"
        --format json --quiet --out "$out/$name.json")
  echo "== acclab ${args[*]}" >> "$out/tune_commands.txt"
  timeout $((budget + 90)) "$acclab" "${args[@]}" 2> "$out/$name.err"
  echo "$name: exit $? after $((SECONDS - start))s" | tee -a "$out/tune_commands.txt"
done
