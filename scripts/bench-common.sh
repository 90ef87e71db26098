# Sourced by the scripts/bench-*.sh measurement scripts: the bundle's environment and run().
# Run them on the GPU machine from the repository root, with the bundle from
# scripts/gpu-bundle.sh; results go to $OUT (default: bench/results/<card><machine_suffix>/
# <results>, the last two set by the calling script; bench/results/README.md describes the
# layout). cuBLAS comes from the GPU machine's own CUDA toolkit (too large to carry).
export LD_LIBRARY_PATH=$PWD/bundle:/usr/local/cuda/lib64
acclab=./bundle/acclab

# card_folder: the folder of the card the results are measured on, so that an H100's do not land
# among an H200's: CARD (h100, h200) where given, else nvidia-smi's first GPU in lower case, less
# "NVIDIA " and what follows the model ("NVIDIA H100 80GB HBM3": h100). h200, where every result
# went before the scripts were named after what they measure, where neither says.
card_folder() {
  local name
  if [[ -n ${CARD:-} ]]; then
    echo "$CARD"
    return
  fi
  name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
  name=${name#NVIDIA }
  name=${name%%[ -]*}
  name=${name,,}
  if [[ $name =~ ^[a-z0-9]+$ ]]; then echo "$name"; else echo h200; fi
}
# machine_suffix: a multi-GPU script's GPU count in the folder's name (x2: two GPUs of one host).
: "${results:?set before sourcing bench-common.sh}"
out=${OUT:-bench/results/$(card_folder)${machine_suffix:-}/$results}
mkdir -p "$out"

# run NAME ARGS...: acclab ARGS as JSON to $out/NAME.json, its command appended to
# $out/commands.txt, and a short table on stdout.
run() {
  local name=$1
  shift
  echo "$name.json: acclab $* --format json --out $name.json" >> "$out/commands.txt"
  echo "== acclab $*"
  "$acclab" "$@" --format json --out "$out/$name.json"
  python3 scripts/results-table.py "$out/$name.json"
}

# acc_launch_shapes WHAT ARGS...: the gangs, workers and vector length libgomp launches each
# OpenACC kernel of `acclab run ARGS` with (GOMP_DEBUG=1, one repetition), counted; WHAT names
# the problem in the heading.
acc_launch_shapes() {
  local what=$1
  shift
  echo "== launch shapes (GOMP_DEBUG=1, $what)"
  GOMP_DEBUG=1 "$acclab" run "$@" --reps 1 2>&1 | grep "launch gangs" | sed 's/.*kernel //' |
    sort | uniq -c
}

# multi_gpu_setup: the multi-GPU scripts' start. Stops where the bundle misses a library; sets
# dry (DRY=1: a check of the script on one GPU) and gpus (GPUS, else 2 for a dry run, else
# nvidia-smi's count), and prints the cards.
multi_gpu_setup() {
  if ldd "$acclab" | grep "not found"; then exit 1; fi
  dry=${DRY:-0}
  if [[ $dry == 1 ]]; then gpus=${GPUS:-2}; else gpus=${GPUS:-$(nvidia-smi --list-gpus | wc -l)}; fi
  nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
}

# launch NAME RANKS ARGS...: run() under mpirun with RANKS ranks (as root, unbound, so that a
# rank's OpenMP threads are not held to one core).
launch() {
  local name=$1 np=$2
  shift 2
  echo "$name.json: mpirun -np $np acclab $* --format json --out $name.json" >> "$out/commands.txt"
  echo "== mpirun -np $np acclab $*"
  local start=$SECONDS
  mpirun --allow-run-as-root -q --bind-to none -np "$np" "$acclab" "$@" --format json \
    --out "$out/$name.json"
  # The wall time, serial reference and gather included: what plans a call's time limit.
  echo "== $name: $((SECONDS - start)) s"
  python3 scripts/results-table.py "$out/$name.json"
}

# pack_out: everything under $out as one $out/results.tgz (the files removed). The device tool
# brings back at most 8 files a call; end a command that writes more with pack_out.
pack_out() {
  local archive
  archive=$(mktemp --suffix=.tgz)
  tar czf "$archive" -C "$out" . && find "$out" -mindepth 1 -delete && mv "$archive" "$out/results.tgz"
}

# statuses: each result's variant, status and error from acclab's JSON on stdin, on one line.
statuses() {
  python3 -c 'import json, sys
print("; ".join(r["variant"] + " " + r["status"] + " " + (r.get("error") or "")
                for r in json.load(sys.stdin)["results"]))'
}
