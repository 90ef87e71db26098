#!/usr/bin/env bash
# On the GPU machine: the OpenMP target steps timed once with each library build-variants.sh
# made (ALT_DIR/LABEL/libacclab_omptarget_*.so) and with the bundle's own ("base", -misa=sm_80),
# in one call, with OpenACC's counterparts once for the ratio. Reports to OUT/LABEL/*.json.
#
# usage: run.sh BUNDLE_DIR ALT_DIR OUT LABEL...
set -uo pipefail
bundle=$(realpath "$1") alt=$(realpath "$2") out=$3
shift 3
acclab="$bundle/acclab"
mkdir -p "$out"
runs=(
  "launch_tiny|vector --preset small --set nx=32 --set ny=32 --set nt=200 --reps 5 --variant triad_omp_target_data,triad_omp_target_tuned"
  "vector_large|vector --preset large --reps 3 --variant triad_omp_target_tuned,dot_omp_target_tuned"
  "jacobi2d_large|jacobi2d --preset large --reps 3 --variant omp_target_tuned"
  "diffusion3d_large|diffusion3d --preset large --reps 3 --variant omp_target_tuned"
)
reference=(
  "launch_tiny|vector --preset small --set nx=32 --set ny=32 --set nt=200 --reps 5 --variant triad_acc"
  "vector_large|vector --preset large --reps 3 --variant triad_acc,dot_acc_partials"
  "jacobi2d_large|jacobi2d --preset large --reps 3 --variant acc_tuned"
  "diffusion3d_large|diffusion3d --preset large --reps 3 --variant acc_tuned"
)
one() {  # $1 label, $2 library folder, $3 "name|arguments"
  local name=${3%%|*} arguments=${3#*|}
  mkdir -p "$out/$1"
  echo "$1: acclab run $arguments" | tee -a "$out/commands.txt"
  LD_LIBRARY_PATH="$2:$LD_LIBRARY_PATH" timeout 120 "$acclab" run $arguments --format json \
    --out "$out/$1/$name.json" > "$out/$1/$name.console.txt" 2>&1
  echo "  exit $?" | tee -a "$out/commands.txt"
}
for r in "${reference[@]}"; do one acc "$bundle" "$r"; done
for label in base "$@"; do
  dir=$bundle
  [[ $label == base ]] || dir="$alt/$label"
  for r in "${runs[@]}"; do one "$label" "$dir" "$r"; done
done
