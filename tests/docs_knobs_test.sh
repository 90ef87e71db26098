#!/usr/bin/env bash
# Each docs/<w>.md's knob table (between its knobs markers) is the one scripts/knob-table.py
# generates from the built binary's declarations, so that a knob added, renamed, given to
# another step or re-documented in the code fails here until the page is regenerated. Skipped
# (77) by a build without every step of the ladder tables: a backend it lacks drops the rows of
# its steps, and with them their knobs.
# usage: docs_knobs_test.sh ACCLAB REPOSITORY_ROOT
set -u
acclab=$1
root=$2
listing=$(mktemp)
trap 'rm -f "$listing"' EXIT
if ! "$acclab" list --format json > "$listing"; then
  echo "FAILED: $acclab list --format json"
  exit 1
fi
python3 - "$root" "$listing" <<'PY'
import json, os, sys
root, listing = sys.argv[1], sys.argv[2]
built = {(v["workload"], v["variant"]) for v in json.load(open(listing))["variants"]}
missing = []
for w in ["vector", "jacobi2d", "diffusion3d", "matmul", "apsp", "iccg"]:
    table = json.load(open(os.path.join(root, "workloads", w, "ladder.json")))
    missing += [f"{w}/{row['name']} ({row['backend']})" for row in table["steps"]
                if (w, row["name"]) not in built]
if missing:
    print(f"skipped: this build lacks {len(missing)} steps of the ladder tables, e.g. "
          + ", ".join(missing[:5]) + "; the knob tables come from a build with all of them")
    sys.exit(77)
PY
status=$?
if [[ $status != 0 ]]; then exit "$status"; fi
if python3 "$root/scripts/knob-table.py" "$acclab" --check "$root/docs"; then
  echo "ok: every docs/<w>.md knob table is the one the declarations generate"
else
  exit 1
fi
