#!/usr/bin/env bash
# acclab tune on real runs (no GPU needed: OpenMP target falls back to the host): the exhaustive
# space of jacobi2d's omp_target_tuned with num_teams and thread_limit fixed (12 points, some
# refused by the step), a point that fails verification recorded and never chosen, random search
# fixed by its seed, an interrupted search written whole, the tunings file applied by run.
# usage: tune_test.sh ACCLAB_BINARY
set -u
acclab=$1
source "$(dirname "$0")/checks.sh"  # check
unset ACCLAB_PROGRESS_INTERVAL

tiny=(--set rows=34 --set cols=34 --set iters=10)
fixed=(--set omp_teams=64 --set omp_threads=128)
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

# --- exhaustive: every point of the declared space, each run and verified ---------------------
"$acclab" tune jacobi2d --variant omp_target_tuned "${tiny[@]}" "${fixed[@]}" --reps 1 \
  --strategy exhaustive --format json --out "$dir/ex.json" --quiet 2> "$dir/err"
status=$?
check "exhaustive: exit 0 ($status; $(head -c 300 "$dir/err"))" test "$status" -eq 0
check "exhaustive: schema acclab.tune/1" test "$(json "$dir/ex.json" "d['schema']")" = acclab.tune/1
check "exhaustive: the command line recorded" \
  test "$(json "$dir/ex.json" "' '.join(d['command_line'][1:4])")" = "tune jacobi2d --variant"
check "exhaustive: the build's commit recorded" \
  test -n "$(json "$dir/ex.json" "d['build']['commit']")"
check "exhaustive: 12 points, every one tried" \
  test "$(json "$dir/ex.json" "len(d['steps'][0]['points']), d['steps'][0]['space']['size']")" \
  = "12 12"
check "exhaustive: no point twice" \
  test "$(json "$dir/ex.json" \
    "len(set(json.dumps(p['tunings'],sort_keys=True) for p in d['steps'][0]['points']))")" = 12
# omp_simd=0 with a shape whose inner loop is always simd is refused by the step's own check.
check "exhaustive: the step's refusals recorded as refused, with its reason" \
  test "$(json "$dir/ex.json" "all('omp_simd=0' in p['detail'] for p in d['steps'][0]['points']
          if p['status'] == 'refused') and any(p['status'] == 'refused'
          for p in d['steps'][0]['points'])")" = True
# Those refusals say nothing against the step: no point failed, each refusal counted as one.
check "exhaustive: refusals counted as refused, not failed" \
  test "$(json "$dir/ex.json" "(lambda s: (s['points_failed'], s['points_refused'] ==
          sum(p['status'] == 'refused' for p in s['points']) > 0))(d['steps'][0])")" = "(0, True)"
check "exhaustive: the best is the fastest verified point" \
  test "$(json "$dir/ex.json" "(lambda s: s['points'][s['best']['index']]['median_s'] ==
          min(p['median_s'] for p in s['points'] if p['status'] == 'verified') and
          s['points'][s['best']['index']]['status'] == 'verified')(d['steps'][0])")" = True
check "exhaustive: the default point first, at the preset's tunings" \
  test "$(json "$dir/ex.json" "d['steps'][0]['points'][0]['tunings'] ==
          {'omp_construct': 'distribute', 'omp_shape': 'rows', 'omp_simd': '1'}")" = True
check "exhaustive: the fixed tunings said" \
  test "$(json "$dir/ex.json" "[f['name'] + '=' + f['value'] for f in
          d['steps'][0]['space']['fixed']]")" = "['omp_teams=64', 'omp_threads=128']"

# --- a point that fails verification: recorded, never chosen -----------------------------------
# --corrupt-point perturbs the result of every point with omp_construct=loop before the step's own
# verification, which must then fail them.
"$acclab" tune jacobi2d --variant omp_target_tuned "${tiny[@]}" "${fixed[@]}" --reps 1 \
  --strategy exhaustive --format json --out "$dir/bad.json" --quiet \
  --corrupt-point omp_construct=loop 2> "$dir/err"
status=$?
check "corrupt loop points: exit 0, distribute points verified ($status)" test "$status" -eq 0
check "corrupt loop points: every measured loop point failed verification" \
  test "$(json "$dir/bad.json" "all(p['status'] in ('failed', 'refused') and p['detail']
          for p in d['steps'][0]['points'] if p['tunings']['omp_construct'] == 'loop')")" = True
check "corrupt loop points: the failures counted, apart from the refusals" \
  test "$(json "$dir/bad.json" "(lambda s: s['points_failed'] >= 4 and s['points_failed'] ==
          sum(p['status'] == 'failed' for p in s['points']) and s['points_refused'] ==
          sum(p['status'] == 'refused' for p in s['points']))(d['steps'][0])")" = True
check "corrupt loop points: the best is a distribute point" \
  test "$(json "$dir/bad.json" "d['steps'][0]['best']['tunings']['omp_construct']")" = distribute
"$acclab" tune jacobi2d --variant omp_target_tuned "${tiny[@]}" "${fixed[@]}" --reps 1 \
  --set omp_construct=distribute --quiet --corrupt-point omp_teams=64 > "$dir/out" 2> "$dir/err"
status=$?
check "every point corrupt: exit 1 ($status)" test "$status" -eq 1
check "every point corrupt: one line names the step" \
  grep -q 'no verified point for jacobi2d/omp_target_tuned' "$dir/err"
check "every point corrupt: the table still printed" grep -q '^jacobi2d/omp_target_tuned ' "$dir/out"

# --- random search: the order of points is the seed's ------------------------------------------
for seed in 5 5 6; do
  "$acclab" tune jacobi2d --variant omp_target_tuned "${tiny[@]}" --reps 1 --strategy random \
    --seed $seed --evals 5 --format json --quiet > "$dir/random.json" 2> "$dir/err"
  json "$dir/random.json" "[p['tunings'] for p in d['steps'][0]['points']]" >> "$dir/order.$seed"
  check "random seed $seed: 5 points measured" \
    test "$(json "$dir/random.json" "d['steps'][0]['points_measured']")" = 5
done
# Five of the space's points: the search did not end by itself, and says so.
check "random --evals 5: the step is cut short" \
  test "$(json "$dir/random.json" "d['steps'][0]['status']")" = "cut short"
"$acclab" tune jacobi2d --variant omp_target_tuned "${tiny[@]}" --reps 1 --strategy random \
  --seed 5 --evals 5 --quiet --save-tunings "$dir/cut.json" > /dev/null 2> "$dir/err"
check "random --evals 5: its saved tunings are not complete" \
  test "$(json "$dir/cut.json" "d['entries'][0]['complete']")" = False
check "random: the same seed draws the same points" \
  test "$(sed -n 1p "$dir/order.5")" = "$(sed -n 2p "$dir/order.5")"
check "random: another seed draws others" test "$(sed -n 1p "$dir/order.5")" != "$(cat "$dir/order.6")"

# --- table ----------------------------------------------------------------------------------------
"$acclab" tune jacobi2d --variant 'acc_*' "${tiny[@]}" --reps 1 --quiet > "$dir/table" 2> "$dir/err"
status=$?
check "table: exit 0 ($status)" test "$status" -eq 0
check "table: its columns" \
  grep -qE '^step +strategy +default +best +speedup +tried +failed +refused +best tunings$' "$dir/table"
check "table: acc_tuned's two async points, exhaustively" \
  grep -qE '^jacobi2d/acc_tuned +exhaustive +[0-9.]+ .s +[0-9.]+ .s +[0-9.]+x +2 +0 +0 +async=[01]$' "$dir/table"
"$acclab" tune jacobi2d --variant omp_target_tuned "${tiny[@]}" "${fixed[@]}" --reps 1 \
  --strategy exhaustive --quiet > "$dir/refusals" 2> "$dir/err"
check "table: the step's refusals in their own column, none failed" \
  grep -qE '^jacobi2d/omp_target_tuned +exhaustive .* 12 +0 +[1-9][0-9]* +omp_' "$dir/refusals"

# --- the progress line within --budget ------------------------------------------------------------
# Points of a good part of a second on the 514 grid: the time left shown never passes what the
# budget leaves (elapsed + left <= budget, both in whole seconds as shown), and once the budget is
# spent the line says the point running is being finished.
budget_lines() {  # $1: budget in seconds, $2: stderr file
  ACCLAB_PROGRESS_INTERVAL=0.05 "$acclab" tune jacobi2d --variant omp_target_tuned \
    --set rows=514 --set cols=514 --set iters=200 "${fixed[@]}" --reps 3 --strategy local \
    --budget "$1" --format json > "$dir/budget.json" 2> "$2"
}
budget_lines 3 "$dir/budget3.err"
check "--budget 3: progress lines were printed" grep -q 'elapsed' "$dir/budget3.err"
over=$(python3 - "$dir/budget3.err" <<'EOF'
import re, sys
def seconds(text):  # "1 min 05 s" or "7 s"
    m = re.match(r'(?:(\d+) min )?(\d+) s$', text)
    return int(m.group(1) or 0) * 60 + int(m.group(2))
bad = []
for line in open(sys.argv[1]):
    m = re.search(r', ((?:\d+ min )?\d+ s) elapsed, (?:about|at most) ((?:\d+ min )?\d+ s) left',
                  line)
    if m and seconds(m.group(2)) > max(0, 3 - seconds(m.group(1))):
        bad.append(line.strip())
print(len(bad), bad[:1])
EOF
)
check "--budget 3: no line says more time left than the budget leaves ($over)" \
  test "${over%% *}" = 0
budget_lines 0.3 "$dir/budget0.err"
check "--budget 0.3: past it, the line says the current point is being finished" \
  grep -q 'elapsed, budget spent: finishing the current point' "$dir/budget0.err"
check "--budget 0.3: and never an estimate past the budget" \
  test "$(grep -cE 'about ([1-9]|[0-9]+ min)' "$dir/budget0.err")" = 0

# --- interrupted: the points so far, written whole ------------------------------------------------
# Points of a few runs on a larger grid, so that the signal comes while points remain.
interrupt() {  # $1: signal, $2: format, $3: output
  # The last search's progress must be gone before this one starts: the background job
  # truncates the file only once it runs, and the wait below would read the old lines and
  # signal a process that has not yet set its handlers (exit 143, no output).
  rm -f "$dir/ierr"
  ACCLAB_PROGRESS_INTERVAL=0.02 "$acclab" tune jacobi2d --variant omp_target_tuned \
    --set rows=514 --set cols=514 --set iters=20 "${fixed[@]}" --reps 3 --strategy exhaustive \
    --format "$2" --out "$3" 2> "$dir/ierr" &
  local pid=$! waited=0
  # Any point from the third on (a short point may pass between two progress lines), and no
  # longer than the search lives.
  until grep -qE 'step ([3-9]|1[0-2]) of 12' "$dir/ierr" 2> /dev/null || ! kill -0 $pid 2> /dev/null ||
    [ $waited -ge 3000 ]; do
    sleep 0.01
    waited=$((waited + 1))
  done
  kill -"$1" $pid
  wait $pid
}
interrupt INT json "$dir/int.json"
status=$?
check "SIGINT: exit 130 ($status)" test "$status" -eq 130
check "SIGINT: the JSON is whole" python3 -c "import json; json.load(open('$dir/int.json'))"
check "SIGINT: it says so" \
  test "$(json "$dir/int.json" "d['interrupted'], d['signal'], d['steps'][0]['status']")" \
  = "True SIGINT interrupted"
check "SIGINT: the points before it, not all 12 ($(json "$dir/int.json" "len(d['steps'][0]['points'])"))" \
  test "$(json "$dir/int.json" "2 <= len(d['steps'][0]['points']) < 12")" = True
check "SIGINT: every point it reports was finished" \
  test "$(json "$dir/int.json" "all(p['status'] == 'refused' or len(p['times_s']) == 3
          for p in d['steps'][0]['points'])")" = True
interrupt TERM table "$dir/term.txt"
status=$?
check "SIGTERM: exit 143 ($status)" test "$status" -eq 143
check "SIGTERM: the table says so" grep -q '^interrupted by SIGTERM' "$dir/term.txt"
check "no temporary left beside the outputs" \
  test "$(ls -A "$dir" | grep -c '^\.')" -eq 0

# --- the tunings file: written by tune, applied by run -------------------------------------------
"$acclab" tune jacobi2d --variant omp_target_tuned "${tiny[@]}" "${fixed[@]}" --reps 1 \
  --strategy exhaustive --quiet --format json --out "$dir/best.json" \
  --save-tunings "$dir/tunings.json" > /dev/null 2> "$dir/err"
status=$?
check "save-tunings: exit 0 ($status)" test "$status" -eq 0
check "save-tunings: schema, keyed by the host's CPU and the compiler" \
  test "$(json "$dir/tunings.json" "d['schema'], sorted(d['entries'][0]['key'])")" \
  = "acclab.tunings/1 ['compiler', 'cpu', 'place']"
# The values that differ from the step's default (a tuning left at its default is not set, as a
# fixed shape refuses the knobs it does not use), and the fixed ones.
check "save-tunings: the best point's tunings off the default, the fixed ones too" \
  test "$(json "$dir/tunings.json" "d['entries'][0]['tunings']")" \
  = "$(json "$dir/best.json" "dict({k: v for k, v in d['steps'][0]['best']['tunings'].items()
       if v != d['steps'][0]['default']['tunings'][k]}, omp_teams='64', omp_threads='128')")"
# A second step's search is added to the file; the first entry stays.
"$acclab" tune jacobi2d --variant acc_tuned "${tiny[@]}" --reps 1 --quiet \
  --save-tunings "$dir/tunings.json" > /dev/null 2> "$dir/err"
check "save-tunings: entries of other steps kept" \
  test "$(json "$dir/tunings.json" "sorted(e['variant'] for e in d['entries'])")" \
  = "['acc_tuned', 'omp_target_tuned']"
check "save-tunings: an exhaustive search that saw every point is complete" \
  test "$(json "$dir/tunings.json" "[e['complete'] for e in d['entries']]")" = "[True, True]"
# The file's values, flipped from the defaults, so that applying them shows in every result.
python3 - "$dir/tunings.json" "$dir/flipped.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for e in d["entries"]:
    if e["variant"] == "omp_target_tuned":
        e["tunings"] = {"omp_teams": "8", "omp_threads": "32", "omp_simd": "1",
                        "omp_construct": "loop", "omp_shape": "flat"}
    else:
        e["tunings"] = {"async": "0"}
# An entry for another device: never applied here.
other = dict(d["entries"][0], key={"place": "gpu", "device": "Another GPU",
                                   "compute_capability": "1.0", "compiler": "GNU 1.0"},
             variant="acc_resident", tunings={"alternate": "0"})
d["entries"].append(other)
json.dump(d, open(sys.argv[2], "w"))
PY
"$acclab" run jacobi2d --variant 'acc_tuned,acc_resident,omp_target_tuned' "${tiny[@]}" \
  --set omp_shape=rows --reps 1 --quiet --format json --tunings "$dir/flipped.json" \
  > "$dir/run.json" 2> "$dir/err"
status=$?
check "run --tunings: exit 0 ($status; $(head -c 300 "$dir/err"))" test "$status" -eq 0
check "run --tunings: the file's values ran, --set omp_shape kept" \
  test "$(json "$dir/run.json" "[r['tuning'] for r in d['results']]")" \
  = "['async=0', 'alternate=1,acc_workers=16,acc_gangs_per_sm=1', 'omp_teams=8,omp_threads=32,omp_simd=1,omp_construct=loop,omp_shape=rows']"
check "run --tunings: each result it tuned says where from" \
  test "$(json "$dir/run.json" "[('tunings from $dir/flipped.json' in (r['note'] or ''))
          for r in d['results']]")" = "[True, False, True]"
check "run --tunings: verified" \
  test "$(json "$dir/run.json" "{r['status'] for r in d['results']}")" = "{'verified'}"
"$acclab" run jacobi2d --variant acc_tuned "${tiny[@]}" --set iters=4 --preset seed --reps 1 --wide \
  --quiet --tunings "$dir/flipped.json" > "$dir/out" 2> "$dir/err"
check "run --tunings: another preset's entry, said so" \
  grep -q "tunings from $dir/flipped.json (tuned on preset small)" "$dir/out"
echo '{"schema": "acclab.run/1"}' > "$dir/wrong.json"
one_line_exit_2 "run --tunings: not a tunings file" "not an acclab.tunings/1 file" \
  "$acclab" run jacobi2d --variant acc_tuned --tunings "$dir/wrong.json"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d['entries'][0]['tunings']['omp_teams']='7x'; json.dump(d, open(sys.argv[2],'w'))" \
  "$dir/tunings.json" "$dir/badvalue.json"
one_line_exit_2 "run --tunings: a value the tuning refuses" "'7x' is not an integer" \
  "$acclab" run jacobi2d --variant omp_target_tuned "${tiny[@]}" --tunings "$dir/badvalue.json"

# --- refusals before any work ---------------------------------------------------------------------
one_line_exit_2 "unknown strategy" "--strategy best" \
  "$acclab" tune jacobi2d --variant omp_target_tuned --strategy best
one_line_exit_2 "a step without tunings" "declares tunings" \
  "$acclab" tune jacobi2d --variant acc_copy_per_iter
one_line_exit_2 "exhaustive over 2592 points without a budget" "2592 points" \
  "$acclab" tune jacobi2d --variant omp_target_tuned --strategy exhaustive

# A fixed region shape (vector's omp_shape=lanes8, the tuned steps' default) refuses --set of the
# knobs it does not use: its default point must still run (a tuning at its default is not set).
ACCLAB_PROGRESS_INTERVAL=0 "$acclab" tune vector --variant triad_omp_target_tuned --set nx=256 \
  --set ny=256 --set nt=2 --reps 1 --evals 4 --strategy random --seed 1 --format json \
  > "$dir/lanes8.json" 2> "$dir/lanes8.err"
status=$?
check "lanes8: exit 0 ($status: $(head -c 200 "$dir/lanes8.err"))" test "$status" -eq 0
check "lanes8: the default point verified" python3 -c "
import json, sys
step = json.load(open('$dir/lanes8.json'))['steps'][0]
sys.exit(not (step['default']['status'] == 'verified' and
              step['default']['tunings']['omp_shape'] == 'lanes8'))"

echo "$failures failures"
exit $((failures > 0))
