# shellcheck shell=bash
# Sourced by call2.sh ... call9.sh: the bundle's environment, $out and $exp, run() and
# summarize().
# Run from the repository root with the bundle of scripts/gpu-bundle.sh in bundle/.
export LD_LIBRARY_PATH=$PWD/bundle:/usr/local/cuda/lib64
out=${OUT:?set OUT to a folder for the results}
exp=${EXP:?set EXP to the folder of the binaries}
mkdir -p "$out"

# run NAME BINARY ARGS...: $EXP/acclab-BINARY ARGS as JSON to $out/NAME.json, its log beside it,
# the command appended to $out/commands.txt.
run() {
  local name=$1 binary=$2
  shift 2
  echo "$name.json: acclab-$binary $* --format json --out $name.json" >> "$out/commands.txt"
  "$exp/acclab-$binary" "$@" --format json --out "$out/$name.json" > "$out/$name.log" 2>&1
  echo "$name rc=$?"
}

# summarize: one line a report in $out, each result's status and median (and the gangs that
# ran, where the step reports them).
summarize() {
  for f in "$out"/*.json; do
    python3 - "$f" <<'PY'
import json, os, sys
doc = json.load(open(sys.argv[1]))
print("%-28s" % os.path.basename(sys.argv[1])[:-5], "; ".join(
    "%s %.5g s%s" % (r["status"], r["time_s"]["median"],
                     " gangs %s" % r["outputs"]["resident_gangs"]
                     if "resident_gangs" in (r.get("outputs") or {}) else "")
    for r in doc["results"]))
PY
  done
}
