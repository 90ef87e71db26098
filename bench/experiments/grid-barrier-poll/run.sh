#!/usr/bin/env bash
# The resident constructs (one compute construct for all steps, gangs meeting at
# core/acc_grid_barrier.hpp's barrier) with acclab binaries that differ only in that barrier or in
# apsp optimize_resident's inner loop, side by side in one call on one H200. Each binary runs
# each command in its own process; the binaries take turns, twice, so that drift shows.
# On the GPU machine, from the repository root, with the bundle of scripts/gpu-bundle.sh in
# bundle/ (its libraries serve every binary):
#   OUT=some/folder bench/experiments/grid-barrier-poll/run.sh BASE_BINARY OTHER_BINARY...
# The first two binaries also run the other workloads' resident steps.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/bundle:/usr/local/cuda/lib64
out=${OUT:?set OUT to a folder for the results}
mkdir -p "$out"
(($# >= 2)) || { echo "usage: OUT=DIR $0 BINARY BINARY..." >&2; exit 2; }

# run NAME BINARY ARGS...: one process, its JSON in $out/NAME.json, one line on stdout.
run() {
  local name=$1 binary=$2
  shift 2
  echo "$name.json: $(basename "$binary") $* --format json --out $name.json" >> "$out/commands.txt"
  local start=$SECONDS
  "$binary" "$@" --format json --out "$out/$name.json" > "$out/$name.log" 2>&1
  local rc=$?
  printf '%-34s rc=%d %3ds ' "$name" "$rc" $((SECONDS - start))
  python3 - "$out/$name.json" <<'PY' 2>/dev/null || echo "(no report)"
import json, sys
doc = json.load(open(sys.argv[1]))
print("; ".join("%s %s %.5g s" % (r["variant"], r["status"], r["time_s"]["median"])
                for r in doc["results"]))
PY
}

tag() { basename "$1" | sed 's/^acclab-//'; }
for round in 1 2; do
  for binary in "$@"; do
    t=$(tag "$binary")
    run "apsp256_${t}_$round" "$binary" run apsp --preset small --set n=256 \
      --variant optimize_resident --reps 5
    run "apspseed_${t}_$round" "$binary" run apsp --preset seed --variant optimize_resident --reps 5
  done
done
for round in 1 2; do
  for binary in "$1" "$2"; do
    t=$(tag "$binary")
    run "apspseedpaths_${t}_$round" "$binary" run apsp --preset seed --set paths=1 \
      --variant optimize_resident --reps 3
    run "jacobi34_${t}_$round" "$binary" run jacobi2d --preset small --set rows=34 --set cols=34 \
      --set iters=10000 --variant acc_resident --reps 5
    run "jacobiseed_${t}_$round" "$binary" run jacobi2d --preset seed --variant acc_resident --reps 5
    run "vectorseed_${t}_$round" "$binary" run vector --preset seed --variant '*_resident' --reps 5
    run "diffusion256_${t}_$round" "$binary" run diffusion3d --preset large --variant acc_tuned \
      --reps 5
    run "iccgseed_${t}_$round" "$binary" run iccg --preset seed --variant optimized --reps 3
  done
done
