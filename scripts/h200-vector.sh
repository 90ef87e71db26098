#!/usr/bin/env bash
# The vector workload's H200 measurements, as committed in bench/results/h200/.
# Run on the GPU machine from the repository root, with the bundle from scripts/gpu-bundle.sh:
#   OUT=some/folder scripts/h200-vector.sh
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/bundle
acclab=./bundle/acclab
out=${OUT:-bench/results/h200}
mkdir -p "$out"
run() {  # run NAME ARGS...: JSON to $out/NAME.json, the table to stdout, the command to $out/NAME.cmd
  local name=$1; shift
  echo "acclab $*" > "$out/$name.cmd"
  echo "== acclab $*"
  "$acclab" "$@" --format json --out "$out/$name.json"
  python3 -c "import json,sys; d=json.load(open(sys.argv[1]))
for r in d['results']:
    t=r['time_s']['median']; f=r['limit_fraction']; s=r.get('speedup_vs_first'); x=r['transfer_share']
    print(f\"{r['variant']:<18} {r['status']:<11} median {t if t is None else f'{t:.4g}':>10} s  GB/s {r['gbytes_per_s'] or 0:9.1f}  limit {f if f is None else f'{f:.3f}':>6}  xfer {x if x is None else f'{x:.3f}':>6}  vs1 {s if s is None else f'{s:.1f}':>7}\")" "$out/$name.json"
}
"$acclab" info --probe --format json > "$out/info.json"
run vector_bandwidth_large run vector --preset large --variant 'triad_*,dot_*' --reps 5
run vector_bandwidth_seed run vector --preset seed --variant 'triad_*,dot_*' --reps 5
run vector_ladder_seed_nt10 ladder vector --preset seed --set nt=10 --reps 1
run vector_ladder_seed ladder vector --preset seed \
  --variant 'original,acc_loop,acc_data,acc_present,acc_reduction,cuda' --reps 1
