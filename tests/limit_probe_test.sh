#!/usr/bin/env bash
# A limit fraction above 1 of a measured limit is a wrong answer (src/core/runner.cpp): with a
# host copy limit cached far too low (here: a cache edited to a tenth of a GB/s), a result is
# never reported above 105 % of its limit: the figure is measured again (a busy-marked figure
# on an idle machine) or the fraction left out with a note.
# usage: limit_probe_test.sh ACCLAB_BINARY
set -u
acclab=$1
source "$(dirname "$0")/checks.sh"
export ACCLAB_CACHE_DIR=$dir/cache ACCLAB_PROGRESS_INTERVAL=0

# The cache as a probe writes it, then its figure made far too low.
"$acclab" run vector --variant triad_openmp --reps 1 --format json > "$dir/first.json" 2> "$dir/err"
check "first run: exit 0" test $? -eq 0
python3 - "$dir/cache/host-copy.json" <<'PY'
import json, os, sys
path = sys.argv[1]
os.makedirs(os.path.dirname(path), exist_ok=True)
try:
    cache = json.load(open(path))
except FileNotFoundError:  # measured on a busy machine: not cached; make the entry ourselves
    first = json.load(open(sys.argv[1].replace("cache/host-copy.json", "first.json")))
    h = first["host"]
    key = f'{h["hostname"]}|{h["cpu"]}|{h["cores"]} cores|{h["memory_bytes"]:.0f} bytes'
    cache = {key: {"measured": "2026-01-01T00:00:00Z"}}
for entry in cache.values():
    entry["gbytes_per_s"] = 0.1
json.dump(cache, open(path, "w"))
PY
check "the cache holds the low figure" grep -q '"gbytes_per_s": 0.1' "$dir/cache/host-copy.json"

"$acclab" run vector --variant triad_openmp --reps 1 --format json > "$dir/second.json" 2> "$dir/err"
status=$?
check "second run: exit 0 ($status: $(head -c 200 "$dir/err"))" test $status -eq 0
read -r fraction limit note < <(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
print(r["limit_fraction"], r["limit_gbytes_per_s"], (r["note"] or "-").replace(" ", "_"))' \
  "$dir/second.json")
check "no limit fraction above 105 % ($fraction)" \
  python3 -c "import sys; f = '$fraction'; sys.exit(not (f == 'None' or float(f) <= 1.05))"
# Measured again (the cached figure marked busy, the machine idle now) or flagged in the note.
check "the limit measured again or the fraction flagged ($limit, $note)" \
  python3 -c "import sys; sys.exit(not (float('$limit') > 1 or '%limit_left_out' in '$note'))"
exit $((failures > 0))
