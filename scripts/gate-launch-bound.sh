#!/usr/bin/env bash
# What slows a launch-bound seed run inside the GPU gate: one step's seed run alone, beside
# BUSY GPU-busy processes (the gate's other jobs), and both again with MPS (the CUDA
# Multi-Process Service: one GPU context for every client, so launches of several processes
# need no time slicing); then every launch-bound step's seed run at once, with MPS and without.
# Run on the GPU machine from the repository root with the bundle of a gpu build:
#
#   bash scripts/gate-launch-bound.sh OUT [STEP (iccg/unified)]
#
# Each process gets the gate's share (OMP_NUM_THREADS = cores / 8, passive waiting). Writes
# OUT/launch-bound.tsv (case, step, seconds, exit, status, timed solve) and each run's report.
set -u
cd "$(dirname "$0")/.."
out=${1:?usage: gate-launch-bound.sh OUT [STEP]}
step=${2:-iccg/unified}
busy_count=${BUSY:-7}
cap=${CAP:-150}
export LD_LIBRARY_PATH=$PWD/bundle:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=$PATH:/usr/local/cuda/bin
export OMP_NUM_THREADS=$(( $(nproc) / 8 > 0 ? $(nproc) / 8 : 1 )) OMP_WAIT_POLICY=passive
mkdir -p "$out"
table=$out/launch-bound.tsv
printf 'case\tstep\tseconds\texit\tstatus\ttimed_s\n' > "$table"
# The steps whose rows give a seed_limit_s or a launch-bound seed_slow reason.
launch_bound=(iccg/unified iccg/data_present iccg/exclude_datacpy_time iccg/optimized_per_color
              iccg/omp_target_map iccg/omp_target_data iccg/omp_target_tuned
              apsp/omp_target_map apsp/omp_target_data apsp/omp_target_tuned)

seed_run() {  # case step: one seed run, cut at $cap s, its line in the table
  local name=${2/\//.} start end rc
  start=$(date +%s.%N)
  timeout -s TERM "$cap" ./bundle/acclab run "${2%/*}" --variant "${2#*/}" --preset seed \
    --reps 1 --quiet --format json --out "$out/$1.$name.json" > "$out/$1.$name.log" 2>&1
  rc=$?
  end=$(date +%s.%N)
  python3 - "$1" "$2" "$start" "$end" "$rc" "$out/$1.$name.json" >> "$table" <<'PY'
import json, sys
case, step, start, end, rc, report = sys.argv[1:]
status, timed = "no report", ""
try:
    r = json.load(open(report))["results"][0]
    status, timed = r["status"], f"{r['time_s']['median']:.2f}"
except Exception:
    pass
print(f"{case}\t{step}\t{float(end) - float(start):.1f}\t{rc}\t{status}\t{timed}")
PY
  tail -1 "$table"
}

busy_pids=()
start_busy() {  # BUSY loops of GPU work like the gate's: other steps' small and seed runs
  local loads=("jacobi2d acc_gang_vector seed" "diffusion3d acc_march seed"
               "vector triad_acc large" "apsp optimize small" "matmul acc_tuned seed"
               "jacobi2d omp_target_data seed" "diffusion3d cuda seed")
  for ((k = 0; k < busy_count; k++)); do
    read -r w v p <<< "${loads[k % ${#loads[@]}]}"
    setsid bash -c "while :; do ./bundle/acclab run $w --variant $v --preset $p --reps 3 \
      --quiet --format json --out /dev/null > /dev/null 2>&1; done" &
    busy_pids+=($!)
  done
  sleep 5
}
stop_busy() {
  for pid in "${busy_pids[@]}"; do kill -- -"$pid" 2> /dev/null; done
  wait 2> /dev/null
  busy_pids=()
}
mps_dirs() {
  export CUDA_MPS_PIPE_DIRECTORY=/tmp/acclab-mps/pipe CUDA_MPS_LOG_DIRECTORY=/tmp/acclab-mps/log
  mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
}
trap 'stop_busy; [[ -n ${CUDA_MPS_PIPE_DIRECTORY:-} ]] && echo quit | nvidia-cuda-mps-control' EXIT
trap "exit 143" TERM

nvidia-smi --query-gpu=name,driver_version,compute_mode --format=csv,noheader | tee "$out/gpu.txt"
mps=$(command -v nvidia-cuda-mps-control || true)
echo "nvidia-cuda-mps-control: ${mps:-not found}" | tee -a "$out/gpu.txt"

# The cases in the order of what they tell most per second, so that a call cut short still
# answers the first questions: alone, alone under MPS, beside the busy processes (with MPS,
# then without), every launch-bound step at once under MPS.
mps_on() { mps_dirs; nvidia-cuda-mps-control -d && sleep 1; }
together() {  # case: every launch-bound step's seed run at once, and the wall time of them all
  local start
  start=$(date +%s.%N)
  for s in "${launch_bound[@]}"; do seed_run "$1" "$s" & done
  wait
  echo "$1 wall $(python3 -c "import time; print(round(time.time() - $start, 1))") s" \
    | tee -a "$out/gpu.txt"
}
mps_off() { echo quit | nvidia-cuda-mps-control; unset CUDA_MPS_PIPE_DIRECTORY; sleep 1; }
seed_run alone "$step"
if [[ -n $mps ]]; then
  mps_on
  seed_run mps-alone "$step"
  start_busy; seed_run "mps-busy$busy_count" "$step"; stop_busy
  mps_off
fi
start_busy; seed_run "busy$busy_count" "$step"; stop_busy
if [[ -n $mps ]]; then
  mps_on
  together mps-together
  mps_off
fi
if [[ ${TOGETHER_WITHOUT_MPS:-0} == 1 ]]; then together together; fi
