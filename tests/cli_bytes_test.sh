#!/usr/bin/env bash
# Arguments are bytes. One that is not UTF-8 in a path (--out, a graph, a matrix) is written into
# the JSON report as U+FFFD, with its exact bytes in a KEY_bytes member beside it
# (docs/bad-input.md): exit 0, a report that parses, and the path recovered byte for byte. One that must name something (a
# workload, a variant, a --set value) is refused before any work: one line, exit 2. No error
# line puts a control byte or a stray byte on the terminal: they are shown as \xNN, while
# well-formed UTF-8 (an accent) is kept as it is.
# usage: cli_bytes_test.sh ACCLAB_BINARY TEST_DATA
set -u
acclab=$1
data=$2
source "$(dirname "$0")/checks.sh"  # check, one_line_exit_2

bad=$'\xff'
odd="$dir/odd${bad}dir"  # a folder whose name is not UTF-8
mkdir "$odd"
cp "$data/graphs/polbooks.mtx" "$data/matrices/bcsstk01.mtx" "$odd/"

# The file is JSON in UTF-8 (Python's decoder is strict) whose command_line and `key` hold
# U+FFFD where the argument had its bad byte, and whose command_line_bytes and KEY_bytes give
# back the arguments as they were: `path` exactly, the UTF-8 arguments as null.
valid_json() {  # $1: file; $2: the key whose value names the odd folder; $3: that path
  python3 - "$1" "$2" "$3" <<'EOF'
import json, os, sys
with open(sys.argv[1], encoding="utf-8", errors="strict") as f:
    report = json.load(f)
key, path = sys.argv[2], os.fsencode(sys.argv[3])
words = " ".join(report["command_line"])
raw = report["command_line_bytes"]
argv = [bytes(b) if b is not None else os.fsencode(a) for a, b in zip(report["command_line"], raw)]
ok = ("odd\ufffddir" in words and "odd\ufffddir" in report[key] and
      bytes(report[key + "_bytes"]) == path and path in argv and
      len(raw) == len(report["command_line"]) and raw[0] is None and raw[1] is None)
if not ok:
    print(report.get(key + "_bytes"), raw, file=sys.stderr)
sys.exit(not ok)
EOF
}

# No byte below 0x20 but the newline, no DEL, no stray 0xff on stderr.
no_raw_bytes() {  # $1: file
  ! LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f\xff]' "$1"
}

# ---- a path with a bad byte, --format json: exit 0 and a report that parses
"$acclab" run vector --variant original --set nt=1 --reps 1 --format json \
  --out "$odd/run.json" > "$dir/out" 2> "$dir/err"
status=$?
check "run --out ODD --format json: exit 0 ($status: $(cat "$dir/err"))" test "$status" -eq 0
check "run --out ODD: the report is UTF-8 JSON with U+FFFD in command_line" \
  python3 -c "
import json, sys
r = json.load(open(sys.argv[1], encoding='utf-8'))
sys.exit(not any('odd\ufffddir' in w for w in r['command_line']))" "$odd/run.json"
check "run --out ODD: command_line_bytes gives the path back byte for byte" \
  python3 -c "
import json, os, sys
r = json.load(open(sys.argv[1], encoding='utf-8'))
raw = r['command_line_bytes']
sys.exit(not (bytes(raw[-1]) == os.fsencode(sys.argv[2]) and raw[1] is None))" "$odd/run.json" \
  "$odd/run.json"

"$acclab" run vector --variant original --set nt=1 --reps 1 --format csv \
  --out "$odd/run.csv" > "$dir/out" 2> "$dir/err"
status=$?
check "run --out ODD --format csv: exit 0 ($status: $(cat "$dir/err"))" test "$status" -eq 0

"$acclab" apsp "$odd/polbooks.mtx" --semiring min-plus --format json --out "$odd/d.bin" \
  > "$dir/apsp.json" 2> "$dir/err"
status=$?
check "apsp ODD/graph --format json: exit 0 ($status: $(cat "$dir/err"))" test "$status" -eq 0
check "apsp: the report is UTF-8 JSON, the graph's name with U+FFFD" \
  valid_json "$dir/apsp.json" graph "$odd/polbooks.mtx"
check "apsp: --out's path given back by out_bytes" \
  python3 -c "import json, os, sys; r = json.load(open(sys.argv[1]))
sys.exit(bytes(r['out_bytes']) != os.fsencode(sys.argv[2]))" "$dir/apsp.json" "$odd/d.bin"

"$acclab" iccg "$odd/bcsstk01.mtx" --format json --out "$odd/x.mtx" \
  > "$dir/iccg.json" 2> "$dir/err"
status=$?
check "iccg ODD/matrix --format json: exit 0 ($status: $(cat "$dir/err"))" test "$status" -eq 0
check "iccg: the report is UTF-8 JSON, the matrix's name with U+FFFD" \
  valid_json "$dir/iccg.json" matrix "$odd/bcsstk01.mtx"
# A document whose strings are all UTF-8 has no _bytes member.
"$acclab" iccg "$data/matrices/bcsstk01.mtx" --format json > "$dir/plain.json" 2> "$dir/err"
check "iccg with UTF-8 paths: no _bytes member" \
  python3 -c "import json, sys; r = json.load(open(sys.argv[1]))
sys.exit(any(k.endswith('_bytes') for k in r))" "$dir/plain.json"

# ---- a name with a bad byte: refused up front, shown escaped
refused() {  # $1: what; the rest: acclab's arguments
  local what=$1
  shift
  one_line_exit_2 "$what" "not valid UTF-8" "$acclab" "$@"
  check "$what: the byte shown as \\xff" grep -qF '\xff' "$dir/err"
  check "$what: no raw byte on stderr" no_raw_bytes "$dir/err"
  check "$what: nothing on stdout" test ! -s "$dir/out"
}
refused "a workload" run "vec${bad}tor" --format json
refused "a ladder's --variant" ladder vector --variant "orig${bad}" --format json
refused "a --set value" run vector --variant original --set "nt=1${bad}" --format json
refused "apsp --variant" apsp "$odd/polbooks.mtx" --variant "multi${bad}core" --format json
refused "iccg --variant" iccg "$odd/bcsstk01.mtx" --variant "orig${bad}" --format json

# ---- control bytes in an error line: escaped; UTF-8 kept
one_line_exit_2 "a workload with an escape sequence" "unknown workload" \
  "$acclab" run $'\e[31mred\a'
check "the escape sequence shown as \\x1b[31mred\\x07" grep -qF '\x1b[31mred\x07' "$dir/err"
check "no raw control byte on stderr" no_raw_bytes "$dir/err"

one_line_exit_2 "an unknown command with control bytes" "unknown command" "$acclab" $'x\r\b'
check "shown as x\\x0d\\x08" grep -qF "'x\\x0d\\x08'" "$dir/err"
check "no raw control byte on stderr" no_raw_bytes "$dir/err"

one_line_exit_2 "an option's value CLI11 refuses" "reps" "$acclab" run vector --reps $'3\e'
check "no raw control byte on stderr" no_raw_bytes "$dir/err"

one_line_exit_2 "a path with a bad byte that is not there" "odd" \
  "$acclab" iccg "$odd/missing.mtx"
check "the path's byte shown as \\xff" grep -qF 'odd\xffdir/missing.mtx' "$dir/err"
check "no raw byte on stderr" no_raw_bytes "$dir/err"

one_line_exit_2 "a workload named in UTF-8" "unknown workload 'wörk'" "$acclab" run wörk
exit $((failures > 0))
