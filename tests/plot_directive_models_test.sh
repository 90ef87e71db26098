#!/usr/bin/env bash
# scripts/plot-directive-models.py on the recorded results: each ratio the medians' own, a step
# that did not verify left out and named, and bad input refused (exit 2, one line, no file).
# usage: plot_directive_models_test.sh PLOT_SCRIPT RESULTS_DIR
set -u
plot=$1
results=$2
source "$(dirname "$0")/checks.sh"

"$plot" "$results" "$dir/models.svg" > "$dir/table" 2> "$dir/err"
check "exit 0 on the recorded results" test $? -eq 0
check "an SVG picture" grep -q "<svg" "$dir/models.svg"
check "nothing on stderr" test ! -s "$dir/err"
# iccg's pair, worked out here from the two medians: the printed ratio must be theirs.
expected=$(python3 - "$results/rest_1472a61/rest_iccg_seed.json" <<'PY'
import json, sys
r = {x["variant"]: x["time_s"]["median"] for x in json.load(open(sys.argv[1]))["results"]}
print(f"{r['omp_target_tuned'] / r['optimized_per_color']:.2f}x")
PY
)
check "iccg's ratio is omp_target_tuned over optimized_per_color ($expected)" \
  grep -qE "^iccg 128³ .* $expected\$" "$dir/table"

# A copy whose iccg OpenMP step failed: that pair alone is left out, and said so.
cp -r "$results" "$dir/copy"
python3 - "$dir/copy/rest_1472a61/rest_iccg_seed.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
for r in doc["results"]:
    if r["variant"] == "omp_target_tuned":
        r["status"] = "failed"
json.dump(doc, open(sys.argv[1], "w"))
PY
"$plot" "$dir/copy" "$dir/partial.svg" > "$dir/table" 2> "$dir/err"
check "a failed step: still exit 0" test $? -eq 0
check "a failed step: named on stderr" grep -q "iccg 128³: left out, omp_target_tuned is failed" "$dir/err"
check "a failed step: not in the table" test "$(grep -c "^iccg 128³ " "$dir/table")" -eq 0
check "a failed step: the other pairs drawn" grep -q "^matmul" "$dir/table"

bad() {  # bad DESCRIPTION WORD ARGS...: exit 2, one stderr line naming WORD, no output left
  local what=$1 word=$2
  shift 2
  one_line_exit_2 "$what" "$word" "$plot" "$@"
  check "$what: no output file" test ! -e "$dir/bad.svg" -a ! -e "$dir/bad.png"
}
rm "$dir/copy/rest_1472a61/rest_matmul_seed.json"
bad "a missing results file" rest_matmul_seed.json "$dir/copy" "$dir/bad.svg"
bad "not a folder" nowhere "$dir/nowhere" "$dir/bad.svg"
bad "not an SVG name" bad.png "$results" "$dir/bad.png"
check "no temporary files left" test -z "$(find "$dir" -name '.plot-*')"
exit $((failures > 0))
