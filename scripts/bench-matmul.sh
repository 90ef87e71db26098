#!/usr/bin/env bash
# The matmul workload's measurements on one GPU, as committed in bench/results/h200/matmul/ (an
# H100's go to bench/results/h100/: scripts/bench-common.sh).
# Run on the GPU machine from the repository root, with the bundle from scripts/gpu-bundle.sh
# (scripts/bench-common.sh says how):
#   OUT=some/folder scripts/bench-matmul.sh
# Correctness first (every variant, CUDA included, on shapes no tile divides), then the seed
# sizes the goals name, the seed ladder both ways, the parallel twins, the whole seed ladder.
# PART=seed_capped runs only the seed ladder with the one-gang steps capped (ONE_GANG_ROWS rows,
# default 32) in both data modes, and the twins at 1024^3 and 4096^3 in both: a few minutes.
set -uo pipefail
results=matmul
source "$(dirname "$0")/bench-common.sh"
if ldd "$acclab" | grep "not found"; then exit 1; fi
part=${PART:-all}
case $part in
  all) ;;
  seed_capped) MAIN=0 TWINS=0 LADDER=0 SWEEP=0 ;;
  pipeline) MAIN=0 TWINS=0 LADDER=0 SWEEP=0 SEED_CAPPED=0 ;;
  *) echo "PART=$part: expected all, seed_capped or pipeline" >&2; exit 2 ;;
esac

if [[ ${MAIN:-1} == 1 ]]; then
  echo "== correctness on the GPU (status of every variant)"
  for sets in "" "--set init=random" "--set m=129 --set n=130 --set k=17 --set data=copy" \
      "--set m=70 --set n=66 --set k=5 --set cuda_tile=64 --set ldc=67" \
      "--set m=300 --set n=513 --set k=129 --set init=random --set lda=140 --set ldb=520" \
      "--set m=131 --set n=1100 --set k=37 --set cuda_mma=m8n8k4 --set acc_block=8x8" \
      "--set m=131 --set n=70 --set k=37 --set cuda_mma=m16n8k8 --set acc_block=4x8 --set init=random" \
      "--set m=131 --set n=70 --set k=37 --set cuda_mma=m16n8k16 --set cuda_tile=64 --set acc_block=8x4"; do
    # shellcheck disable=SC2086
    "$acclab" run matmul $sets --reps 1 --format json | statuses
  done

  # GCC 12 hands the nests of acc_auto, acc_independent_reduction, acc_gang_vector, acc_tile and
  # acc_collapse in `kernels` to parloops, which leaves them sequential on one gang
  # (acclab explain shows it): over a minute per 1024^3 product. They are measured at 256^3.
  parallel='openmp,cpu_blas,acc_independent_seq,acc_tuned,cuda_tiled,cublas'
  if [[ ${GOMP_LAUNCHES:-1} == 1 ]]; then
    echo "== launch shapes (GOMP_DEBUG=1, 256^3)"
    GOMP_DEBUG=1 "$acclab" run matmul --preset seed --set m=256 --set n=256 --set k=256 \
      --variant 'acc_*' --reps 1 2>&1 | grep "launch gangs" | sed 's/.*matmul//' | sort | uniq -c
  fi
  run matmul_4096 run matmul --preset large --variant 'cpu_blas,acc_tuned,cuda_tiled,cublas' --reps 3
  run matmul_4096_tile64 run matmul --preset large --set cuda_tile=64 --variant cuda_tiled --reps 3
  run matmul_8192 run matmul --preset large --set m=8192 --set n=8192 --set k=8192 \
    --variant 'acc_tuned,cuda_tiled,cublas' --reps 3
  run matmul_seed_resident ladder matmul --preset seed --variant "$parallel" --reps 3
  run matmul_seed_copy ladder matmul --preset seed --set data=copy \
    --variant 'acc_independent_seq,acc_tuned,cuda_tiled,cublas' --reps 3
  run matmul_256_all ladder matmul --preset seed --set m=256 --set n=256 --set k=256 --reps 1
fi

# The parallel twins (TWINS=1) of the seed steps GCC leaves on one gang, beside
# acc_independent_seq and acc_tuned, at the seed size and at 4096^3, both data modes; then
# (LADDER=1) the seed preset's whole ladder, every step at 1024^3 with its launches profiled
# (--profile: the gang count of every launch), timed as a whole.
twins='acc_independent_seq,acc_auto_parallel,acc_independent_reduction_parallel'
twins+=',acc_gang_vector_parallel,acc_tile_parallel,acc_collapse_parallel,acc_tuned'
# run_twins PREFIX: the twins beside acc_independent_seq and acc_tuned, 1024^3 and 4096^3, both
# data modes, to PREFIX_{seed,4096}_{resident,copy}.json.
run_twins() {
  run "$1_seed_resident" run matmul --preset seed --variant "$twins" --reps 3
  run "$1_seed_copy" run matmul --preset seed --set data=copy --variant "$twins" --reps 3
  run "$1_4096_resident" run matmul --preset large --variant "$twins" --reps 1
  run "$1_4096_copy" run matmul --preset large --set data=copy --variant "$twins" --reps 1
}
if [[ ${TWINS:-1} == 1 ]]; then
  run_twins matmul_twins
fi
if [[ ${LADDER:-1} == 1 ]]; then
  start=$SECONDS
  run matmul_seed_ladder_profile ladder matmul --preset seed --profile --reps 3
  echo "the seed ladder took $((SECONDS - start)) s"
fi

# The seed preset's whole ladder in minutes (PART=seed_capped, or with everything else): the five
# steps GCC runs on one gang (over 60 ms a row at 1024^3) compute the first ONE_GANG_ROWS rows of
# C only, their times for those rows; --profile gives every step's gang count. Then the twins.
if [[ $part == seed_capped || ${SEED_CAPPED:-1} == 1 ]]; then
  rows=${ONE_GANG_ROWS:-32}
  for data in resident copy; do
    start=$SECONDS
    run "matmul_seed_capped_${rows}_${data}" ladder matmul --preset seed --set data=$data \
      --set one_gang_rows="$rows" --profile --reps 3
    echo "the seed ladder, one-gang steps capped at $rows rows, data=$data: $((SECONDS - start)) s"
  done
  if [[ $part == seed_capped ]]; then run_twins matmul_capped_twins; fi
fi

# The tuning sweep (SWEEP=1; MAIN=0 leaves out everything above it but the ldd check): cuda_tiled's
# MMA shape and block tile, acc_tuned's register block, at 4096^3 and 8192^3 with cuBLAS
# alongside in each run for the ratio.
if [[ ${SWEEP:-0} == 1 ]]; then
  for size in 4096 8192; do
    dims=(--set m=$size --set n=$size --set k=$size)
    for mma in m8n8k4 m16n8k4 m16n8k8 m16n8k16; do
      for tile in 64 128; do
        run "matmul_sweep_${size}_${mma}_t${tile}" run matmul --preset large "${dims[@]}" \
          --variant 'cuda_tiled,cublas' --set cuda_mma=$mma --set cuda_tile=$tile --reps 3
      done
    done
    for block in 8x4 8x8 4x8 16x4; do
      run "matmul_sweep_${size}_acc_${block}" run matmul --preset large "${dims[@]}" \
        --variant 'acc_tuned' --set acc_block=$block --reps 3
    done
  done
fi

# cuda_tiled's copy pipeline (PART=pipeline): first every block shape, slice depth and pipeline
# depth on shapes no tile divides, with odd leading dimensions (copies of one double); then each
# at 4096^3 with cuBLAS in the same call, and the three fastest again at 8192^3.
if [[ $part == pipeline ]]; then
  shapes=(tiles128_w8 "--set cuda_tile=128 --set cuda_warps=8"
          tiles128_w16 "--set cuda_tile=128 --set cuda_warps=16"
          tiles64_w4 "--set cuda_tile=64 --set cuda_warps=4"
          tiles64_w8 "--set cuda_tile=64 --set cuda_warps=8")
  echo "== correctness of every pipeline shape on the GPU"
  for ((s = 0; s < ${#shapes[@]}; s += 2)); do
    for depth in "--set cuda_slice=16 --set cuda_stages=2" "--set cuda_slice=32 --set cuda_stages=3" \
        "--set cuda_slice=16 --set cuda_stages=4"; do
      for sets in "--set m=131 --set n=270 --set k=77 --set init=random" \
          "--set m=67 --set n=70 --set k=45 --set lda=47 --set ldb=71 --set ldc=71" \
          "--set m=300 --set n=129 --set k=3 --set init=random --set cuda_mma=m8n8k4" \
          "--set m=131 --set n=70 --set k=37 --set cuda_mma=m16n8k16 --set ldb=75"; do
        # shellcheck disable=SC2086
        echo "${shapes[s]} $depth $sets: $("$acclab" run matmul ${shapes[s + 1]} $depth $sets \
          --variant cuda_tiled --reps 1 --format json | statuses)"
      done
    done
  done
  dims=(--set m=4096 --set n=4096 --set k=4096)
  run matmul_pipeline_4096_cublas run matmul --preset large "${dims[@]}" --variant cublas --reps 5
  for ((s = 0; s < ${#shapes[@]}; s += 2)); do
    for slice in 16 32; do
      for stages in 2 3 4; do
        [[ ${shapes[s]} == tiles128* && $slice == 32 && $stages == 4 ]] && continue
        # shellcheck disable=SC2086
        run "matmul_pipeline_4096_${shapes[s]}_k${slice}_s${stages}" run matmul --preset large \
          "${dims[@]}" ${shapes[s + 1]} --set cuda_slice=$slice --set cuda_stages=$stages \
          --variant cuda_tiled --reps 3
      done
    done
  done
  run matmul_pipeline_4096_cublas_after run matmul --preset large "${dims[@]}" --variant cublas \
    --reps 5
  best=$(python3 -c 'import glob, json, re, sys
times = {}
for f in glob.glob(sys.argv[1] + "/matmul_pipeline_4096_tiles*.json"):
    r = json.load(open(f))["results"][0]
    if r["status"] == "verified":
        times[re.search(r"4096_(tiles.*)\.json", f).group(1)] = r["time_s"]["median"]
print(" ".join(sorted(times, key=times.get)[:3]))' "$out")
  dims=(--set m=8192 --set n=8192 --set k=8192)
  for name in $best; do
    [[ $name =~ tiles([0-9]+)_w([0-9]+)_k([0-9]+)_s([0-9]+) ]] || continue
    run "matmul_pipeline_8192_$name" run matmul --preset large "${dims[@]}" \
      --set cuda_tile="${BASH_REMATCH[1]}" --set cuda_warps="${BASH_REMATCH[2]}" \
      --set cuda_slice="${BASH_REMATCH[3]}" --set cuda_stages="${BASH_REMATCH[4]}" \
      --variant cuda_tiled,cublas --reps 3
  done
fi
