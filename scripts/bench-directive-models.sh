#!/usr/bin/env bash
# OpenACC against OpenMP target offload (the omp_target_* steps) on a one-GPU machine, every
# figure of a workload from one call, as docs/directive-models.md shows them. From the
# repository root with the bundle (scripts/bench-common.sh):
#   OUT=some/folder scripts/bench-directive-models.sh
# 1. Where each model ran (acclab info), and the launch shapes GCC picked (GOMP_DEBUG=1).
# 2. vector at `large`: the OpenACC and OpenMP bandwidth steps side by side, then the tuned
#    OpenMP steps as `target teams loop` and without simd; BabelStream's OpenMP model at the
#    same size where peers/babelstream holds it (scripts/peer-babelstream.sh).
# 3. jacobi2d and diffusion3d at `large`: the OpenACC steps against their OpenMP twins (and
#    diffusion3d's tuned OpenMP step as `target teams loop`); the steps that copy every sweep on
#    `small`.
# PART=stencils runs 3 alone (the vector steps that map their arrays every run take minutes).
# PART=why looks for what holds the tuned OpenMP stencils back: their launch shapes, the loop
# nests (omp_shape) at `large`, and one kernel of each model under ncu on the seed-sized grids.
# PART=rest times what a why call of 600 s has no room for: diffusion3d's nests at `large`,
# matmul's and apsp's tuned steps, and iccg's OpenMP steps beside its OpenACC ones.
# PART=launch measures what one region costs, against one OpenACC construct in the same
# program: vector's triad over 32 x 32 elements, a region a pass, by num_teams x thread_limit,
# under libgomp's documented environment variables (OMP_NUM_TEAMS, OMP_TEAMS_THREAD_LIMIT) and
# the driver's JIT levels (GOMP_NVPTX_JIT), the last also at `large`.
set -uo pipefail
part=${PART:-all}
case $part in
  all | stencils | why | rest | launch) ;;
  *) echo "PART=$part: expected all, stencils, why, rest or launch" >&2; exit 2 ;;
esac
results=directive-models
source "$(dirname "$0")/bench-common.sh"
"$acclab" info --probe --format json > "$out/info.json"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print({k: v for k, v in d.items() if 'omptarget' in k or 'openacc' in k})" "$out/info.json"
if [[ $part == all ]]; then
  echo "== launch shapes (GOMP_DEBUG=1, vector small)"
  GOMP_DEBUG=1 "$acclab" run vector --preset small --variant '*_omp_target_tuned,triad_acc,dot_acc_reduction' \
    --reps 1 2>&1 | grep -E "kernel .*: launch" | sed 's/0x[0-9a-f]*//g' | sort | uniq -c | head -20
  run vector_large run vector --preset large --variant 'triad_*,dot_*' --reps 5
  # The tuned steps' default shape is lanes8; the construct and simd knobs shape the flat one.
  run vector_large_flat run vector --preset large --variant '*_omp_target_tuned' --set omp_shape=flat --reps 5
  run vector_large_loop run vector --preset large --variant '*_omp_target_tuned' --set omp_shape=flat --set omp_construct=loop --reps 5
  run vector_large_nosimd run vector --preset large --variant '*_omp_target_tuned' --set omp_shape=flat --set omp_simd=0 --reps 5
  # The peer (scripts/peer-babelstream.sh, carried as peers/babelstream): BabelStream's OpenMP
  # model, the same compiler and offload flags, vector's large size (2^28 floats), 20 times.
  if [[ -x peers/babelstream/omp-stream ]]; then
    echo "== BabelStream OpenMP: $(head -1 peers/babelstream/BUILD.txt)"
    cp peers/babelstream/BUILD.txt "$out/babelstream_build.txt"
    echo "babelstream_omp_large.csv: peers/babelstream/omp-stream --arraysize 268435456 --float --numtimes 20 --csv" >> "$out/commands.txt"
    peers/babelstream/omp-stream --arraysize 268435456 --float --numtimes 20 --csv \
      | tee "$out/babelstream_omp_large.csv"
  fi
fi
if [[ $part == why ]]; then
  for w in jacobi2d diffusion3d; do
    echo "== launch shapes (GOMP_DEBUG=1, $w small)"
    GOMP_DEBUG=1 "$acclab" run $w --preset small --variant 'acc_tuned,omp_target_tuned' \
      --reps 1 2>&1 | grep -E "kernel .*: launch" | sed 's/0x[0-9a-f]*//g' | sort | uniq -c | head -20
  done
  # The tuned step's loop nests (omp_shape) beside OpenACC's, the default (rows) first.
  run why_jacobi2d_large run jacobi2d --preset large --variant 'acc_tuned,omp_target_tuned' --reps 3
  for nest in flat collapse; do
    run why_jacobi2d_large_$nest run jacobi2d --preset large --variant omp_target_tuned \
      --set omp_shape=$nest --reps 3
  done
  run why_jacobi2d_large_rows_loop run jacobi2d --preset large --variant omp_target_tuned \
    --set omp_construct=loop --reps 3
  run why_diffusion3d_large run diffusion3d --preset large --variant 'acc_rows,acc_tuned,omp_target_tuned' --reps 3
  for nest in flat collapse; do
    run why_diffusion3d_large_$nest run diffusion3d --preset large --variant omp_target_tuned \
      --set omp_shape=$nest --reps 3
  done
  # One kernel of each model on the seed-sized grids (a few sweeps), the sections that say
  # whether memory, issue or occupancy bounds it.
  for w in jacobi2d:iters diffusion3d:steps; do
    count=${w#*:} w=${w%:*}
    for v in acc_tuned omp_target_tuned; do
      echo "== ncu $w $v"
      ncu --kernel-name regex:omp_fn --launch-skip 3 --launch-count 1 --section SpeedOfLight \
        --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis \
        --section WarpStateStats "$acclab" run $w --preset seed --set $count=8 --variant $v \
        --reps 1 > "$out/ncu_${w}_$v.txt" 2>&1 || true
      grep -E "Duration|DRAM Throughput|Memory Throughput|Compute \(SM\)|Registers Per|Achieved Occupancy|Theoretical Occupancy|Block Size|Grid Size|Warp Cycles Per Issued|Local Memory" "$out/ncu_${w}_$v.txt" | head -20
    done
  done
  # matmul's and apsp's tuned OpenMP steps beside the OpenACC steps they mirror: the seed's
  # 1024³ product, and 1024 pivot steps (a region each).
  run why_matmul_seed run matmul --preset seed --variant 'acc_tuned,omp_target_data,omp_target_tuned' --reps 3
  run why_matmul_seed_collapse run matmul --preset seed --variant omp_target_tuned --set omp_shape=collapse --reps 3
  run why_apsp_1024 run apsp --preset small --set n=1024 --variant 'optimize,omp_target_data,omp_target_tuned' --reps 3
  pack_out
  exit 0
fi
if [[ $part == launch ]]; then
  tiny=(--preset small --set nx=32 --set ny=32 --set nt=200 --reps 5)
  shapes() {  # the launch line GOMP_DEBUG prints for the tuned triad's region
    GOMP_DEBUG=1 "$acclab" run vector --preset small --set nx=32 --set ny=32 --set nt=1 \
      --variant triad_omp_target_tuned --reps 1 "$@" 2>&1 | grep -E "omp_fn.*: launch" |
      sed 's/0x[0-9a-f]*//g' | sort | uniq -c | head -3
  }
  echo "== launch shape, libgomp's choice"
  shapes
  run launch_tiny run vector "${tiny[@]}" \
    --variant 'triad_acc,triad_acc_resident,triad_omp_target_data,triad_omp_target_tuned'
  for tt in 1x1 4x8 16x8 66x8 132x1 132x8 132x32 264x8 528x8; do
    run launch_tiny_teams_$tt run vector "${tiny[@]}" --variant triad_omp_target_tuned \
      --set omp_teams=${tt%x*} --set omp_threads=${tt#*x}
  done
  for env in OMP_NUM_TEAMS=4 OMP_TEAMS_THREAD_LIMIT=1; do
    echo "== $env: launch shape"
    (export "${env?}"; shapes)
    echo "launch_tiny_$env.json: $env acclab run vector ${tiny[*]} --variant triad_omp_target_tuned --format json --out launch_tiny_$env.json" >> "$out/commands.txt"
    env $env "$acclab" run vector "${tiny[@]}" --variant triad_omp_target_tuned --format json \
      --out "$out/launch_tiny_$env.json" > /dev/null
  done
  for jit in -O0 -O4; do
    for size in tiny large; do
      if [[ $size == tiny ]]; then args=("${tiny[@]}"); else args=(--preset large --reps 3); fi
      echo "launch_${size}_jit$jit.json: GOMP_NVPTX_JIT=$jit acclab run vector ${args[*]} --variant triad_acc,triad_omp_target_tuned --format json --out launch_${size}_jit$jit.json" >> "$out/commands.txt"
      GOMP_NVPTX_JIT=$jit "$acclab" run vector "${args[@]}" --variant 'triad_acc,triad_omp_target_tuned' \
        --format json --out "$out/launch_${size}_jit$jit.json" > /dev/null
    done
  done
  run launch_large run vector --preset large --reps 3 --variant 'triad_acc,triad_omp_target_tuned'
  python3 - "$out" <<'PY'
import glob, json, os, sys
for path in sorted(glob.glob(os.path.join(sys.argv[1], "launch_*.json"))):
    for r in json.load(open(path))["results"]:
        passes = r["params"]["nt"]
        print(f"{os.path.basename(path):40s} {r['variant']:24s} {r['status']:9s} "
              f"{1e6 * r['time_s']['median'] / passes:10.1f} us a pass")
PY
  pack_out
  exit 0
fi
if [[ $part == rest ]]; then
  run rest_diffusion3d_large run diffusion3d --preset large --variant 'acc_rows,acc_tuned,omp_target_tuned' --reps 3
  for nest in flat collapse; do
    run rest_diffusion3d_large_$nest run diffusion3d --preset large --variant omp_target_tuned \
      --set omp_shape=$nest --reps 3
  done
  run rest_matmul_seed run matmul --preset seed --variant 'acc_tuned,omp_target_data,omp_target_tuned' --reps 3
  run rest_matmul_seed_collapse run matmul --preset seed --variant omp_target_tuned --set omp_shape=collapse --reps 3
  run rest_apsp_1024 run apsp --preset small --set n=1024 --variant 'optimize,omp_target_data,omp_target_tuned' --reps 3
  # iccg's course problem (128^3): each OpenMP step beside the OpenACC step it mirrors.
  echo "== launch shapes (GOMP_DEBUG=1, iccg small)"
  GOMP_DEBUG=1 "$acclab" run iccg --preset small --variant 'optimized_per_color,omp_target_tuned' \
    --reps 1 2>&1 | grep -E "kernel .*: launch" | sed 's/0x[0-9a-f]*//g' | sort | uniq -c | head -20
  run rest_iccg_seed run iccg --preset seed \
    --variant 'data_present,exclude_datacpy_time,optimized_per_color,omp_target_*' --reps 3
  run rest_iccg_seed_loop run iccg --preset seed --variant omp_target_tuned --set omp_construct=loop --reps 3
  pack_out
  exit 0
fi
# The steps that copy every sweep or step (acc_copy_per_iter, acc_kernels, omp_target_map) only on
# small: at large jacobi2d's omp_target_map alone ran past 120 s.
run jacobi2d_small_copies run jacobi2d --preset small --variant 'acc_copy_per_iter,omp_target_map' --reps 3
run jacobi2d_large run jacobi2d --preset large --variant 'acc_data_region,acc_tuned,omp_target_data,omp_target_tuned' --reps 3
run diffusion3d_small_copies run diffusion3d --preset small --variant 'acc_kernels,omp_target_map' --reps 3
run diffusion3d_large run diffusion3d --preset large --variant 'acc_data_present,acc_flat,acc_rows,acc_tuned,omp_target_data,omp_target_tuned' --reps 3
run diffusion3d_large_loop run diffusion3d --preset large --variant omp_target_tuned --set omp_construct=loop --reps 3
pack_out
