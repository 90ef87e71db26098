#!/usr/bin/env bash
# scripts/plot-ladder.py on a real report, and its bad input: exit 2, one line, no file.
# usage: plot_test.sh ACCLAB_BINARY PLOT_SCRIPT
set -u
acclab=$1
plot=$2
source "$(dirname "$0")/checks.sh"

"$acclab" ladder vector --format json --out "$dir/vector.json" || { echo "acclab failed"; exit 1; }
"$plot" "$dir/vector.json" "$dir/vector.svg" 2> "$dir/err"
check "exit 0 on a ladder report" test $? -eq 0
check "an SVG picture" grep -q "<svg" "$dir/vector.svg"
check "the steps named in it" grep -q "original" "$dir/vector.svg"
check "nothing on stderr" test ! -s "$dir/err"
"$plot" "$dir/vector.json" "$dir/vector.png" --title "vector" 2> "$dir/err"
check "exit 0 writing a PNG" test $? -eq 0
check "a PNG picture" grep -q PNG "$dir/vector.png"

bad() {  # bad DESCRIPTION WORD ARGS...: exit 2, one stderr line naming WORD, no output left
  local what=$1 word=$2
  shift 2
  one_line_exit_2 "$what" "$word" "$plot" "$@"
  check "$what: no output file" test ! -e "$dir/bad.svg"
}
echo "not json" > "$dir/text.json"
echo '{"schema": "something/1", "results": []}' > "$dir/other.json"
echo '{"schema": "acclab.run/1", "results": []}' > "$dir/empty.json"
echo '{"schema": "acclab.run/1", "results": [{"status": "verified", "params": null}]}' \
  > "$dir/broken.json"
bad "not JSON" text.json "$dir/text.json" "$dir/bad.svg"
bad "not an acclab report" other.json "$dir/other.json" "$dir/bad.svg"
bad "no results" empty.json "$dir/empty.json" "$dir/bad.svg"
bad "a malformed result" "result 0" "$dir/broken.json" "$dir/bad.svg"
bad "missing report" missing.json "$dir/missing.json" "$dir/bad.svg"
bad "unwritable folder" "no/such" "$dir/vector.json" "$dir/no/such/bad.svg"
bad "unknown picture format" bad.txt "$dir/vector.json" "$dir/bad.txt"
bad "no arguments" usage
check "no temporary files left" test -z "$(find "$dir" -name '.plot-*')"
exit $((failures > 0))
