#!/usr/bin/env bash
# scripts/results-table.py (what the bench scripts print after each run) on a recorded run: a
# row a result, an unavailable step's times as "-"; a file that is no acclab.run/1 result: exit
# 2, one line (scripts/run_file.py's checks).
# usage: results_table_test.sh SCRIPT DATA_DIR
set -u
table=$1
recorded=$2/compare/vector_run.json
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
source "$(dirname "$0")/checks.sh"

python3 "$table" "$recorded" > "$dir/out" 2> "$dir/err"
check "a recorded run: exit 0" test $? -eq 0
check "a recorded run: nothing on stderr" test ! -s "$dir/err"
check "a recorded run: the file named, then a row a result" \
  test "$(grep -c '^== ' "$dir/out")" -eq 1 -a "$(grep -vc '^== ' "$dir/out")" -eq 4
check "a recorded run: a verified step's median" grep -qE '^original +verified +median +0\.01452 s' \
  "$dir/out"
check "a recorded run: an unavailable step's median as -" \
  grep -qE '^triad_cuda +unavailable +median +- s' "$dir/out"

echo '{"schema": "acclab.compare/1", "results": []}' > "$dir/compare.json"
echo '{"schema": "acclab.run/1", "results": []}' > "$dir/empty.json"
one_line_exit_2 "another schema" 'not an acclab report' python3 "$table" "$dir/compare.json"
one_line_exit_2 "no results" 'no results' python3 "$table" "$dir/empty.json"
one_line_exit_2 "a missing file" 'cannot read' python3 "$table" "$dir/missing.json"
exit $((failures > 0))
