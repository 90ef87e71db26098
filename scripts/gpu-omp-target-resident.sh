#!/usr/bin/env bash
# One GPU call for the resident OpenMP target steps: at vector's `large` and at the seed sizes,
# each beside its OpenACC resident twin, the tuned per-launch steps and CUDA, in one process per
# command; BabelStream's OpenMP target (peers/babelstream, scripts/peer-babelstream.sh, same GCC)
# at the same size; the libgomp launch shape. Run from the repository root on the GPU machine
# with the bundle unpacked: OUT=folder bash scripts/gpu-omp-target-resident.sh
set -u
out=${OUT:?OUT names the folder for the reports}
export LD_LIBRARY_PATH=$PWD/bundle:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
acclab=bundle/acclab
nvidia-smi -L | tee "$out/gpu.txt"
step() {  # step NAME ACCLAB-ARGS...
  local name=$1
  shift
  echo "== $name: acclab $*" | tee -a "$out/commands.txt"
  timeout 180 "$acclab" "$@" --quiet --format json --out "$out/$name.json"
  echo "$name: exit $?"
}
step vector_large run vector --preset large --reps 5 --variant \
  'triad_acc_resident,triad_omp_target_resident,triad_omp_target_tuned,triad_omp_target_data,triad_cuda,dot_acc_resident,dot_omp_target_resident,dot_omp_target_tuned,dot_omp_target_data,dot_cuda'
if [[ -x peers/babelstream/omp-stream ]]; then
  echo "== babelstream: peers/babelstream/omp-stream --arraysize 268435456 --float --numtimes 20 --csv" \
    | tee -a "$out/commands.txt"
  timeout 120 peers/babelstream/omp-stream --arraysize 268435456 --float --numtimes 20 --csv \
    > "$out/babelstream.csv" 2>&1
  cp peers/babelstream/BUILD.txt "$out/babelstream_build.txt"
fi
step vector_seed run vector --preset seed --reps 3 --variant \
  'triad_acc_resident,triad_omp_target_resident,triad_omp_target_tuned,dot_acc_resident,dot_omp_target_resident,dot_omp_target_tuned'
step jacobi2d_seed run jacobi2d --preset seed --reps 3 --variant \
  'acc_resident,omp_target_resident,omp_target_tuned,omp_target_data,cuda'
GOMP_DEBUG=1 timeout 60 "$acclab" run vector --preset large --reps 1 --quiet \
  --variant triad_omp_target_resident 2>&1 | grep -i -m 20 'launch\|teams\|threads' \
  > "$out/gomp_debug.txt"
