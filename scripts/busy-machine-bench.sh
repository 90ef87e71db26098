#!/usr/bin/env bash
# The busy-machine benchmark (src/core/host_load.hpp): the OpenMP steps that a busy machine
# slowed by hundreds of times, run while one spinning process per core keeps every core busy,
# first with acclab's busy-machine default switched off (ACCLAB_HOST_LOAD=ignore: libgomp's
# spinning and a thread per core, what acclab did before) and then with it, in one call; then
# the same two on the idle machine. No OpenMP variable of the user's is set in any of them.
# A measurement, not a test: it prints a table and writes every report to OUT_DIR.
# usage: scripts/busy-machine-bench.sh [ACCLAB (default build/apps/acclab/acclab)] [OUT_DIR]
set -u
acclab=${1:-build/apps/acclab/acclab}
out=${2:-bench/results/cpu/busy-machine}
mkdir -p "$out"
steps=(
  "iccg omp_target_data"
  "iccg original"
  "matmul openmp"
  "diffusion3d openmp"
  "apsp multicore"
)
spinners=()
stop_spinners() {
  ((${#spinners[@]})) && kill "${spinners[@]}" 2> /dev/null
  wait "${spinners[@]}" 2> /dev/null
  spinners=()
}
trap stop_spinners EXIT

measure() {  # measure LABEL [env...]
  local label=$1
  shift
  for step in "${steps[@]}"; do
    read -r workload variant <<< "$step"
    env -u OMP_WAIT_POLICY -u OMP_NUM_THREADS -u GOMP_SPINCOUNT -u ACCLAB_HOST_LOAD "$@" \
      timeout 600 "$acclab" run "$workload" --variant "$variant" --reps 3 --quiet --format json \
      --out "$out/$label-$workload-$variant.json"
    echo "$label $workload/$variant: exit $?"
  done
}

cores=$(nproc)
for ((i = 0; i < cores; ++i)); do
  (while :; do :; done) &
  spinners+=($!)
done
sleep 1
measure busy-before ACCLAB_HOST_LOAD=ignore
measure busy-after
stop_spinners
sleep 1
measure idle-before ACCLAB_HOST_LOAD=ignore
measure idle-after

python3 - "$out" "${steps[@]}" <<'PY' | tee "$out/table.txt"
import json, os, sys
out, steps = sys.argv[1], sys.argv[2:]
def median(label, step):
    w, v = step.split()
    path = os.path.join(out, f"{label}-{w}-{v}.json")
    try:
        j = json.load(open(path))
        r = j["results"][0]
        return r["time_s"]["median"], r["status"], j["host"]["openmp"]
    except Exception as e:
        return None, f"no report ({e.__class__.__name__})", {}
print(f"{'step':28} {'idle before':>12} {'idle after':>12} {'busy before':>12} {'busy after':>12}"
      f" {'busy/idle before':>17} {'busy/idle after':>16}")
for step in steps:
    t = {k: median(k, step) for k in ("idle-before", "idle-after", "busy-before", "busy-after")}
    cell = lambda k: f"{t[k][0] * 1e3:10.1f}ms" if t[k][0] else f"{t[k][1]:>12}"
    ratio = lambda a, b: f"{t[a][0] / t[b][0]:.1f}x" if t[a][0] and t[b][0] else "-"
    print(f"{step.replace(' ', '/'):28} {cell('idle-before')} {cell('idle-after')} "
          f"{cell('busy-before')} {cell('busy-after')} {ratio('busy-before', 'idle-before'):>17} "
          f"{ratio('busy-after', 'idle-after'):>16}")
# One file for the call's reports, keyed by label-workload-variant.
reports = {}
for name in sorted(os.listdir(out)):
    if name.endswith(".json") and name != "reports.json":
        reports[name[:-5]] = json.load(open(os.path.join(out, name)))
        os.remove(os.path.join(out, name))
with open(os.path.join(out, "reports.json"), "w") as f:
    json.dump(reports, f, indent=1)
PY
