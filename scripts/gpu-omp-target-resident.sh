#!/usr/bin/env bash
# One GPU call for the resident OpenMP target steps: at vector's `large` and at the seed sizes,
# each beside its OpenACC resident twin, the tuned per-launch steps and CUDA, in one process per
# command; BabelStream's OpenMP target (peers/babelstream, scripts/peer-babelstream.sh, same GCC)
# at the same size; the registers each image linked to and the shape libgomp launched
# (GOMP_DEBUG=1); ncu's occupancy and warp states of each resident region beside its OpenACC
# twin. Run from the repository root on the GPU machine with the bundle unpacked:
#   OUT=folder bash scripts/gpu-omp-target-resident.sh
# NCU=0 leaves ncu out; NOISE=1 adds two separate processes of jacobi2d at the seed size
# (--reps 7, every step), the pair `acclab compare` is judged on (docs/compare.md).
set -u
out=${OUT:?OUT names the folder for the reports}
export LD_LIBRARY_PATH=$PWD/bundle:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=$PATH:/usr/local/cuda/bin
acclab=bundle/acclab
nvidia-smi -L | tee "$out/gpu.txt"
step() {  # step NAME ACCLAB-ARGS...
  local name=$1
  shift
  echo "== $name: acclab $*" | tee -a "$out/commands.txt"
  timeout 180 "$acclab" "$@" --quiet --format json --out "$out/$name.json"
  echo "$name: exit $?"
}

# Registers of every image libgomp linked (one line per image and entry) and the launch shapes:
# the resident regions ask for 16 warps a team, which only 128 registers or fewer allow.
shapes() {  # shapes WORKLOAD VARIANT ARGS...
  local workload=$1 variant=$2
  shift 2
  echo "== GOMP_DEBUG $workload/$variant" >> "$out/gomp_debug.txt"
  # The launch lines apart from the JIT's register lines (one a kernel of every image, many
  # more), which would crowd them out of a common top-N.
  GOMP_DEBUG=1 timeout 120 "$acclab" run "$workload" --variant "$variant" --reps 1 --quiet "$@" \
    > "$out/gomp_debug.raw" 2>&1
  grep "GOMP_OFFLOAD_run: kernel" "$out/gomp_debug.raw" | sed 's/0x[0-9a-f]*//g' | sort |
    uniq -c | sort -rn >> "$out/gomp_debug.txt"
  grep -E "used [0-9]+ registers" "$out/gomp_debug.raw" | sed 's/0x[0-9a-f]*//g' | sort |
    uniq -c | sort -rn | head -8 >> "$out/gomp_debug.txt"
  rm -f "$out/gomp_debug.raw"
}
shapes vector triad_omp_target_resident --preset small
shapes vector dot_omp_target_resident --preset small
shapes jacobi2d omp_target_resident --preset small
shapes diffusion3d omp_target_resident --preset small
shapes apsp omp_target_resident --preset small
shapes iccg omp_target_resident --preset small
cat "$out/gomp_debug.txt"

step vector_large run vector --preset large --reps 5 --variant \
  'triad_acc_resident,triad_omp_target_resident,triad_omp_target_tuned,triad_cuda,dot_acc_resident,dot_omp_target_resident,dot_omp_target_tuned,dot_cuda'
if [[ -x peers/babelstream/omp-stream ]]; then
  echo "== babelstream: peers/babelstream/omp-stream --arraysize 268435456 --float --numtimes 20 --csv" \
    | tee -a "$out/commands.txt"
  timeout 120 peers/babelstream/omp-stream --arraysize 268435456 --float --numtimes 20 --csv \
    > "$out/babelstream.csv" 2>&1
  cp peers/babelstream/BUILD.txt "$out/babelstream_build.txt"
fi
step vector_seed run vector --preset seed --reps 3 --variant \
  'triad_acc_resident,triad_omp_target_resident,dot_acc_resident,dot_omp_target_resident'
step jacobi2d_seed run jacobi2d --preset seed --reps 3 --variant \
  'acc_resident,omp_target_resident,cuda'
step diffusion3d_seed run diffusion3d --preset seed --reps 3 --variant \
  'acc_tuned,omp_target_resident,cuda'
step apsp_seed run apsp --preset seed --reps 3 --variant \
  'optimize_resident,omp_target_resident,cuda_blocked'
step iccg_seed run iccg --preset seed --reps 3 --variant 'optimized,omp_target_resident,cuda'

if [[ ${NOISE:-0} == 1 ]]; then
  for copy in a b; do
    step "jacobi2d_seed_noise_$copy" run jacobi2d --preset seed --reps 7
  done
fi

if [[ ${NCU:-1} == 1 ]] && command -v ncu > /dev/null; then
  # The region itself, past the set-up kernels: one launch of each resident kernel.
  profile() {  # profile NAME KERNEL-REGEX COUNT ACCLAB-ARGS...
    local name=$1 kernel=$2 count=$3
    shift 3
    echo "== ncu $name: $kernel" | tee -a "$out/commands.txt"
    timeout 90 ncu --kernel-name "regex:$kernel" --launch-count "$count" --section LaunchStats \
      --section Occupancy --section WarpStateStats --section SpeedOfLight "$acclab" run "$@" \
      --reps 1 --quiet > "$out/ncu_$name.txt" 2>&1
    grep -E "Registers Per Thread|Block Size|Grid Size|Theoretical Occupancy|Achieved Occupancy|Duration|DRAM Throughput|Warp Cycles Per Issued|Issued Warp" \
      "$out/ncu_$name.txt" | sed 's/  */ /g'
  }
  profile jacobi2d_omp OmpTargetResident3run 1 jacobi2d --preset seed --variant omp_target_resident
  # The same region at the plain shape (16 warps, one team a multiprocessor), which the seed's
  # small teams beat 2.3x: where the 16-warp team's warps wait (barrier stalls or memory).
  profile jacobi2d_omp_16x1 OmpTargetResident3run 1 jacobi2d --preset seed \
    --variant omp_target_resident --set omp_thread_limit=16 --set omp_teams_per_sm=1
  # GCC names an OpenACC kernel after its function (..._omp_fn.N): the first three launches of
  # the step, the resident construct among them.
  profile jacobi2d_acc _omp_fn 3 jacobi2d --preset seed --variant acc_resident
  profile diffusion3d_omp OmpTargetResident 1 diffusion3d --preset seed --variant omp_target_resident
  profile vector_triad_omp OmpTargetResident6passes 1 vector --preset large --variant triad_omp_target_resident
fi

