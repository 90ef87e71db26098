#!/usr/bin/env bash
# acclab compare on result files: a recorded run (tests/data/compare/vector_run.json, written by
# acclab run) and copies of it edited where a test needs a known answer, then real runs of this
# binary compared with themselves and with each other; --fail-if-slower; the three formats;
# bad input (one line, exit 2, no output file).
# usage: compare_test.sh ACCLAB_BINARY DATA_DIR
set -u
acclab=$1
recorded=$2/compare/vector_run.json
source "$(dirname "$0")/checks.sh"  # check, one_line_exit_2
unset ACCLAB_PROGRESS_INTERVAL

json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
# edit IN OUT PYTHON: OUT is IN's document `d` after the statements PYTHON.
edit() {
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); $3
json.dump(d, open(sys.argv[2], 'w'), indent=1)" "$1" "$2"
}
# edit_original IN OUT PYTHON: edit, with `r` the result of the step original.
edit_original() {
  edit "$1" "$2" "r = next(r for r in d['results'] if r['variant'] == 'original')
$3"
}
verdicts() { json "$1" "' '.join(r['verdict'] for r in d['rows'])"; }

# --- a recorded run against edited copies of itself: answers known whatever this machine does ---
# The recorded file's steps: original and triad_openmp (15 timed runs each) and the unavailable
# triad_cuda and dot_cuda. No --set changes a step's time without changing the parameters it is
# matched by (a tuning of another step is not among its parameters, and changes nothing it runs),
# so the slowdown is written into the file: every run of original made 20 % longer.
cp "$recorded" "$dir/a.json"
edit_original "$dir/a.json" "$dir/slow.json" "
r['times_s'] = [1.2 * t for t in r['times_s']]
r['time_s'] = {k: 1.2 * v for k, v in r['time_s'].items()}
r['limit_fraction'] /= 1.2
d['build']['commit'] = '0123456789abcdef0123456789abcdef01234567'"
# The same runs in another order: the same samples, so the same step whatever the order.
edit "$dir/a.json" "$dir/shuffled.json" "
for r in d['results']: r['times_s'] = r['times_s'][::-1]"

"$acclab" compare "$dir/a.json" "$dir/shuffled.json" --format json --out "$dir/same.json" \
  2> "$dir/err"
status=$?
check "itself, shuffled: exit 0 ($status; $(head -c 300 "$dir/err"))" test "$status" -eq 0
check "itself, shuffled: schema acclab.compare/1" \
  test "$(json "$dir/same.json" "d['schema']")" = acclab.compare/1
check "itself, shuffled: both timed steps same, ratio 1, p 1" \
  test "$(json "$dir/same.json" "[(r['variant'], r['verdict'], r['ratio'], r['p_value'])
          for r in d['rows']]")" \
  = "[('original', 'same', 1.0, 1.0), ('triad_openmp', 'same', 1.0, 1.0)]"
check "itself, shuffled: the interval around 1, 15 runs a side" \
  test "$(json "$dir/same.json" "all(r['ratio_low'] <= 1 <= r['ratio_high'] and
          r['reps'] == {'baseline': 15, 'file': 15} for r in d['rows'])")" = True
check "itself, shuffled: each side's limit fraction" \
  test "$(json "$dir/same.json" "all(r['limit_fraction']['baseline'] ==
          r['limit_fraction']['file'] > 0 for r in d['rows'])")" = True
both='unavailable in A, unavailable in B'
check "itself, shuffled: the unavailable CUDA steps not compared, and why" \
  test "$(json "$dir/same.json" "sorted((u['variant'], u['reason']) for u in d['not_compared'])")" \
  = "[('dot_cuda', '$both'), ('triad_cuda', '$both')]"
check "itself, shuffled: no provenance differs" \
  test "$(json "$dir/same.json" "d['provenance_differences']")" = "[]"
"$acclab" compare "$dir/a.json" "$dir/a.json" > "$dir/self.txt" 2> "$dir/err"
check "the file with itself: every step same (text)" \
  test "$(grep -cE '^vector/(original|triad_openmp) .* same +\{' "$dir/self.txt")" -eq 2

"$acclab" compare "$dir/a.json" "$dir/slow.json" --format json > "$dir/slow-cmp.json" 2> "$dir/err"
status=$?
check "20 % slower: exit 0 without --fail-if-slower ($status)" test "$status" -eq 0
check "20 % slower: original slower at ratio 1.2, triad_openmp same" \
  test "$(json "$dir/slow-cmp.json" "[(r['variant'], r['verdict'], round(r['ratio'], 9))
          for r in d['rows']]")" = "[('original', 'slower', 1.2), ('triad_openmp', 'same', 1.0)]"
check "20 % slower: the interval holds 1.2 and not 1" \
  test "$(json "$dir/slow-cmp.json" "(lambda r: 1 < r['ratio_low'] <= 1.2 <= r['ratio_high'])(
          d['rows'][0])")" = True
check "20 % slower: the commit differs, said with both values" \
  test "$(json "$dir/slow-cmp.json" "[(p['name'], p['values'][1][:8])
          for p in d['provenance_differences']]")" = "[('commit', '01234567')]"
"$acclab" compare "$dir/a.json" "$dir/slow.json" > "$dir/slow.txt" 2> "$dir/err"
check "20 % slower (text): the commit lines, A's then B's" \
  grep -qzP '\n  commit +A +[0-9a-f]{40}\n +B +0123456789abcdef' "$dir/slow.txt"
check "20 % slower (text): the row, ratio, interval and verdict" \
  grep -qE '^vector/original +small +15 +15 .* 1\.200 +\[1\.[0-9]+, 1\.[0-9]+\] .* slower +\{' \
  "$dir/slow.txt"

"$acclab" compare "$dir/a.json" "$dir/slow.json" --fail-if-slower 10 > /dev/null 2> "$dir/err"
status=$?
check "--fail-if-slower 10 on 20 % slower: exit 1 ($status)" test "$status" -eq 1
check "--fail-if-slower 10: one line naming the step" test "$(wc -l < "$dir/err")" -eq 1
check "--fail-if-slower 10: it names vector/original and its ratio" \
  grep -q 'vector/original (B 1.200x)' "$dir/err"
"$acclab" compare "$dir/a.json" "$dir/slow.json" --fail-if-slower 30 > /dev/null 2> "$dir/err"
status=$?
check "--fail-if-slower 30 on 20 % slower: exit 0 ($status)" test "$status" -eq 0
"$acclab" compare "$dir/a.json" "$dir/shuffled.json" --fail-if-slower 10 > /dev/null 2> "$dir/err"
status=$?
check "--fail-if-slower 10 on the same runs: exit 0 ($status)" test "$status" -eq 0
"$acclab" compare "$dir/slow.json" "$dir/a.json" --format json > "$dir/faster.json" 2> "$dir/err"
check "the other way round: faster" \
  test "$(json "$dir/faster.json" "d['rows'][0]['verdict']")" = faster

# --- the noise threshold: a difference the test finds but smaller than --noise is `same` ---------
# original's 15 runs set 0.1 % apart, and copies of them 3 % and 10 % longer: the U test separates
# each copy completely from A (p far below 0.05), so only the threshold decides.
edit_original "$dir/a.json" "$dir/tight.json" "
r['times_s'] = [0.01 * (1 + 0.001 * k) for k in range(15)]"
for pct in 3 10; do
  edit_original "$dir/tight.json" "$dir/tight$pct.json" "
r['times_s'] = [(1 + $pct / 100) * t for t in r['times_s']]"
done
"$acclab" compare "$dir/tight.json" "$dir/tight3.json" --format json > "$dir/t3.json" 2> "$dir/err"
check "3 % slower, p < 0.05: same under the default 5 % threshold" \
  test "$(json "$dir/t3.json" "(lambda r: (r['verdict'], r['p_value'] < 0.001, r['significant'],
          r['beyond_noise'], round(r['ratio'], 6)))(d['rows'][0])")" \
  = "('same', True, True, False, 1.03)"
check "3 % slower: the threshold in the JSON, 5 %" \
  test "$(json "$dir/t3.json" "d['statistics']['noise_percent']")" = 5.0
check "3 % slower: the interval still says 3 % (above 1)" \
  test "$(json "$dir/t3.json" "d['rows'][0]['ratio_low'] > 1")" = True
check "3 % slower: tested the repetitions of one process" \
  test "$(json "$dir/t3.json" "d['rows'][0]['tested']")" = repetitions
"$acclab" compare "$dir/tight.json" "$dir/tight3.json" --noise 2 --format json \
  > "$dir/t3n2.json" 2> "$dir/err"
check "3 % slower, --noise 2: slower" \
  test "$(json "$dir/t3n2.json" "(d['rows'][0]['verdict'], d['statistics']['noise_percent'])")" \
  = "('slower', 2.0)"
"$acclab" compare "$dir/tight.json" "$dir/tight10.json" --format json > "$dir/t10.json" \
  2> "$dir/err"
check "10 % slower: slower under the default threshold" \
  test "$(json "$dir/t10.json" "d['rows'][0]['verdict']")" = slower
"$acclab" compare "$dir/tight.json" "$dir/tight10.json" --noise 12 --format json \
  > "$dir/t10n12.json" 2> "$dir/err"
check "10 % slower, --noise 12: same" \
  test "$(json "$dir/t10n12.json" "d['rows'][0]['verdict']")" = same
"$acclab" compare "$dir/tight.json" "$dir/tight3.json" > "$dir/t3.txt" 2> "$dir/err"
check "text: the threshold printed above the table" \
  grep -q '^noise threshold 5% (--noise)' "$dir/t3.txt"
check "text: the 3 % row same, ratio 1.030" \
  grep -qE '^vector/original +small +15 +15 .* 1\.030 +\[1\.0[0-9]+, 1\.0[0-9]+\] .* same +\{' \
  "$dir/t3.txt"
check "text: says what was tested" grep -q '^tested: the repetitions of one process' "$dir/t3.txt"
"$acclab" compare "$dir/tight.json" "$dir/tight3.json" --noise 2 --format csv > "$dir/t3.csv" \
  2> "$dir/err"
check "csv: the threshold and what was tested in each row" \
  test "$(python3 -c "import csv,sys; r=list(csv.DictReader(open(sys.argv[1])))[0]
print(r['verdict'], r['tested'], r['noise_percent'])" "$dir/t3.csv")" = "slower repetitions 2"
# --fail-if-slower fails on a verdict: below the threshold no step fails, whatever PCT.
"$acclab" compare "$dir/tight.json" "$dir/tight3.json" --fail-if-slower 2 > /dev/null 2> "$dir/err"
status=$?
check "--fail-if-slower 2 on 3 % slower within --noise 5: exit 0 ($status)" test "$status" -eq 0
"$acclab" compare "$dir/tight.json" "$dir/tight3.json" --fail-if-slower 2 --noise 2 > /dev/null \
  2> "$dir/err"
status=$?
check "--fail-if-slower 2 --noise 2 on 3 % slower: exit 1 ($status)" test "$status" -eq 1
one_line_exit_2 "--noise -1" "--noise -1: expected a percentage" \
  "$acclab" compare "$dir/a.json" "$dir/a.json" --noise -1

# --- invocations: each process's median, tested where both files have several ------------------
# Five invocations' medians, each 0.1 % apart, and a copy 10 % slower: tested between the
# invocations (5 against 5), whatever the repetitions inside them say.
edit_original "$dir/tight.json" "$dir/inv.json" "
r['invocations_median_s'] = [0.01 * (1 + 0.001 * k) for k in range(5)]"
edit_original "$dir/inv.json" "$dir/inv10.json" "
r['invocations_median_s'] = [1.1 * t for t in r['invocations_median_s']]"
"$acclab" compare "$dir/inv.json" "$dir/inv10.json" --format json > "$dir/inv-cmp.json" \
  2> "$dir/err"
check "invocations 10 % slower: slower, tested between the 5 invocations" \
  test "$(json "$dir/inv-cmp.json" "(lambda r: (r['verdict'], r['tested'], r['invocations'],
          round(r['ratio'], 6)))(d['rows'][0])")" \
  = "('slower', 'invocations', {'baseline': 5, 'file': 5}, 1.1)"
check "invocations: a step with one process on a side tests its repetitions" \
  test "$(json "$dir/inv-cmp.json" "d['rows'][1]['tested']")" = repetitions
"$acclab" compare "$dir/inv.json" "$dir/inv10.json" > "$dir/inv.txt" 2> "$dir/err"
check "invocations (text): the counts as invocations, and said below the table" \
  grep -qE '^vector/original +small +5 inv +5 inv .* slower' "$dir/inv.txt"
check "invocations (text): the line that says which was tested" \
  grep -q '^tested: the invocations (each process.s median) where reps says inv' "$dir/inv.txt"
# The repetitions 10 % apart but the invocations' medians the same: same (the processes decide).
edit_original "$dir/inv.json" "$dir/inv-reps10.json" "
r['times_s'] = [1.1 * t for t in r['times_s']]"
"$acclab" compare "$dir/inv.json" "$dir/inv-reps10.json" --format json > "$dir/inv-r.json" \
  2> "$dir/err"
check "invocations alike, repetitions 10 % apart: same" \
  test "$(json "$dir/inv-r.json" "d['rows'][0]['verdict']")" = same
edit_original "$dir/inv10.json" "$dir/inv3.json" "
r['invocations_median_s'] = r['invocations_median_s'][:3]"
"$acclab" compare "$dir/inv.json" "$dir/inv3.json" --format json > "$dir/inv3-cmp.json" \
  2> "$dir/err"
check "3 invocations against 5: too few invocations, the ratio kept" \
  test "$(json "$dir/inv3-cmp.json" "(lambda r: (r['verdict'], r['p_value'], r['ratio'] > 1))(
          d['rows'][0])")" = "('too few invocations', None, True)"

# Below 5 runs on a side: the ratio, no interval, no verdict.
edit "$dir/slow.json" "$dir/four.json" "
for r in d['results']: r['times_s'] = r['times_s'][:4]"
"$acclab" compare "$dir/a.json" "$dir/four.json" --format json > "$dir/four-cmp.json" 2> "$dir/err"
check "4 runs: too few reps, the ratio kept, no interval or p" \
  test "$(json "$dir/four-cmp.json" "{(r['verdict'], r['ratio_low'], r['ratio_high'], r['p_value'],
          r['ratio'] > 0) for r in d['rows']}")" = "{('too few reps', None, None, None, True)}"

# Steps in one file only; a third file; CSV.
edit "$dir/slow.json" "$dir/partial.json" "
d['results'] = [r for r in d['results'] if r['variant'] != 'triad_openmp']
d['results'].append(dict(d['results'][0], variant='dot_openmp'))"
"$acclab" compare "$dir/a.json" "$dir/partial.json" "$dir/shuffled.json" --format json \
  > "$dir/three.json" 2> "$dir/err"
status=$?
check "three files: exit 0 ($status; $(head -c 300 "$dir/err"))" test "$status" -eq 0
c_triad="('C vs A', 'triad_openmp', 'same')"
check "three files: B and C each against A" \
  test "$(json "$dir/three.json" "[(r['pair'], r['variant'], r['verdict']) for r in d['rows']]")" \
  = "[('B vs A', 'original', 'slower'), ('C vs A', 'original', 'same'), $c_triad]"
check "three files: the steps in one file only" \
  test "$(json "$dir/three.json" "[(u['variant'], u['reason']) for u in d['not_compared']
          if u['reason'].startswith('only')]")" \
  = "[('triad_openmp', 'only in A'), ('dot_openmp', 'only in B')]"
"$acclab" compare "$dir/a.json" "$dir/partial.json" > "$dir/three.txt" 2> "$dir/err"
check "text: the step only in B listed below the table" \
  grep -q '^  not compared: vector/dot_openmp (preset small, .*): only in B$' "$dir/three.txt"
"$acclab" compare "$dir/a.json" "$dir/slow.json" --format csv --out "$dir/cmp.csv" 2> "$dir/err"
status=$?
check "csv: exit 0 ($status)" test "$status" -eq 0
check "csv: a header and a row per compared step" test "$(wc -l < "$dir/cmp.csv")" -eq 3
check "csv: the slower row, params quoted" \
  grep -qE '^[^,]+,[^,]+,vector,original,small,"\{""nt"":[0-9]+,.*\}",15,15,.*,slower,' \
  "$dir/cmp.csv"

# --- real runs of this binary --------------------------------------------------------------------
# The serial step on a small grid: about 15 runs of a few ms each, no OpenMP threads whose
# placement adds noise on a busy machine.
step=(vector --variant original --set nx=512 --set ny=512 --set nt=10 --reps 15 --quiet)
"$acclab" run "${step[@]}" --format json --out "$dir/run1.json" 2> "$dir/err"
status=$?
check "a real run: exit 0 ($status; $(head -c 300 "$dir/err"))" test "$status" -eq 0
# The file with itself: the same samples, whatever the machine did while they were taken.
"$acclab" compare "$dir/run1.json" "$dir/run1.json" --format json > "$dir/run-self.json" \
  2> "$dir/err"
check "a real run with itself: same, ratio 1" \
  test "$(json "$dir/run-self.json" "[(r['verdict'], r['ratio']) for r in d['rows']]")" \
  = "[('same', 1.0)]"
# Two runs of the same binary: `same` is what they should give, but it is a test at alpha = 0.05
# on times of a shared machine: one pair in 20 differs by chance alone, and a load that changes
# between the two runs (another job starting on CI's two cores) shifts every run of the second.
# On the machine this was written on, at a load of 6 on 2 cores, 4 pairs in 20 were not `same`.
# So up to five fresh pairs, each two back-to-back runs of under a second, until one is `same`:
# a comparison that can never say `same` (a wrong test, a wrong direction) fails all five; chance
# alone fails all five about once in 3 million test runs, on that busy machine once in 3000.
real_same=no
for attempt in 1 2 3 4 5; do
  "$acclab" run "${step[@]}" --format json --out "$dir/runA.json" 2> "$dir/err" &&
    "$acclab" run "${step[@]}" --format json --out "$dir/runB.json" 2> "$dir/err" &&
    "$acclab" compare "$dir/runA.json" "$dir/runB.json" --format json > "$dir/runs.json" \
      2> "$dir/err" || break
  seen=$(verdicts "$dir/runs.json")
  echo "two real runs, pair $attempt: $seen ($(json "$dir/runs.json" "d['rows'][0]['p_value']"))"
  if [ "$seen" = same ]; then
    real_same=yes
    break
  fi
done
check "two real runs of the same step: same (in one of five pairs)" test "$real_same" = yes

# --invocations N: N processes of the same command, merged; compare then tests the processes.
small=(vector --variant original --set nx=256 --set ny=64 --set nt=3 --reps 3 --quiet)
mkdir "$dir/tmp"
for side in A B; do
  TMPDIR="$dir/tmp" "$acclab" run "${small[@]}" --invocations 5 --format json \
    --out "$dir/inv$side.json" 2> "$dir/err"
  status=$?
  check "run --invocations 5 ($side): exit 0 ($status; $(head -c 300 "$dir/err"))" \
    test "$status" -eq 0
done
check "--invocations 5: 5 medians, 15 runs, the document says 5 invocations" \
  test "$(json "$dir/invA.json" "(d['invocations'], len(d['results'][0]['invocations_median_s']),
          len(d['results'][0]['times_s']), d['results'][0]['reps'])")" = "(5, 5, 15, 3)"
check "--invocations 5: the median is the invocations' median, each within min and max" \
  test "$(json "$dir/invA.json" "(lambda r: r['time_s']['median'] ==
          sorted(r['invocations_median_s'])[2] and all(r['time_s']['min'] <= m <=
          r['time_s']['max'] for m in r['invocations_median_s']))(d['results'][0])")" = True
check "--invocations 5: the command line recorded is the one given" \
  test "$(json "$dir/invA.json" "'--invocations' in d['command_line']")" = True
check "--invocations 5: no temporary file left behind" test -z "$(ls -A "$dir/tmp")"
"$acclab" compare "$dir/invA.json" "$dir/invB.json" --format json > "$dir/invAB.json" 2> "$dir/err"
check "compare of two --invocations 5 files tests the invocations" \
  test "$(json "$dir/invAB.json" "(d['rows'][0]['tested'], d['rows'][0]['invocations'])")" \
  = "('invocations', {'baseline': 5, 'file': 5})"
"$acclab" run "${small[@]}" --invocations 2 > "$dir/inv.txt" 2> "$dir/err"
status=$?
check "--invocations 2, table: exit 0, the step's row ($status)" \
  grep -qE '^course +original +serial .* verified' "$dir/inv.txt"
one_line_exit_2 "--invocations 0" "--invocations 0: must be at least 1" \
  "$acclab" run "${small[@]}" --invocations 0
one_line_exit_2 "--invocations 2 --profile" "--invocations 2 and --profile" \
  "$acclab" run "${small[@]}" --invocations 2 --profile

# The ladder's vs 1st and vs prev carry an interval and a within-noise flag; --noise moves it.
steps=(vector --variant 'original,acc_loop' --set nx=256 --set ny=64 --set nt=3 --reps 5 --quiet)
"$acclab" ladder "${steps[@]}" --format json --out "$dir/ladder.json" 2> "$dir/err"
status=$?
check "ladder: exit 0 ($status; $(head -c 300 "$dir/err"))" test "$status" -eq 0
check "ladder: vs 1st carries its interval and a within-noise flag, the threshold recorded" \
  test "$(json "$dir/ladder.json" "(lambda r: (len(r['speedup_vs_first_interval']),
          r['speedup_vs_first_interval'][0] <= r['speedup_vs_first_interval'][1],
          type(r['speedup_vs_first_within_noise']).__name__,
          type(r['speedup_vs_previous_within_noise']).__name__, d['noise_percent']))(
          d['results'][1])")" = "(2, True, 'bool', 'bool', 5.0)"
"$acclab" ladder "${steps[@]}" --noise 100000 --format json --out "$dir/ladder-n.json" \
  2> "$dir/err"
check "ladder --noise 100000: every speedup within noise" \
  test "$(json "$dir/ladder-n.json" "(d['results'][1]['speedup_vs_first_within_noise'],
          d['results'][1]['speedup_vs_previous_within_noise'], d['noise_percent'])")" \
  = "(True, True, 100000.0)"
"$acclab" ladder "${steps[@]}" --noise 100000 > "$dir/ladder.txt" 2> "$dir/err"
check "ladder table: ~ marks a speedup within noise" \
  grep -qE '^course +acc_loop .* ~[0-9.]+x +~[0-9.]+x ' "$dir/ladder.txt"
check "ladder table: the legend says what ~ means, with the threshold" \
  grep -q '^~ within noise: runs not told apart .* less than 100000% apart (--noise)' \
  "$dir/ladder.txt"
"$acclab" ladder "${steps[@]}" --noise 0 --format csv > "$dir/ladder.csv" 2> "$dir/err"
check "ladder csv: the interval's ends and the flag in columns" \
  test "$(python3 -c "import csv,sys; r=list(csv.DictReader(open(sys.argv[1])))[1]
print(float(r['speedup_vs_first_low']) <= float(r['speedup_vs_first_high']),
      r['speedup_vs_first_within_noise'] in ('true', 'false'))" "$dir/ladder.csv")" = "True True"

# --- bad input: one line naming the file, exit 2, nothing written --------------------------------
out="$dir/never.txt"
no_output() { check "$1: no output file" test ! -e "$out"; }
one_line_exit_2 "one file" "needs the baseline and at least one file" \
  "$acclab" compare "$dir/a.json" --out "$out"
no_output "one file"
one_line_exit_2 "no file" "0 result files given" "$acclab" compare --out "$out"
one_line_exit_2 "a missing file" "$dir/missing.json: cannot be read (No such file or directory)" \
  "$acclab" compare "$dir/a.json" "$dir/missing.json" --out "$out"
no_output "a missing file"
: > "$dir/empty.json"
one_line_exit_2 "an empty file" "$dir/empty.json: empty file, not an acclab.run/1 result" \
  "$acclab" compare "$dir/empty.json" "$dir/a.json" --out "$out"
no_output "an empty file"
head -c 200 "$dir/a.json" > "$dir/cut.json"
one_line_exit_2 "a truncated file" "$dir/cut.json: not JSON" \
  "$acclab" compare "$dir/a.json" "$dir/cut.json" --out "$out"
no_output "a truncated file"
echo '{"schema": "acclab.tune/1", "steps": []}' > "$dir/tune.json"
one_line_exit_2 "another schema" "$dir/tune.json: schema \"acclab.tune/1\", not acclab.run/1" \
  "$acclab" compare "$dir/a.json" "$dir/tune.json" --out "$out"
no_output "another schema"
edit "$dir/a.json" "$dir/noschema.json" "del d['schema']"
one_line_exit_2 "no schema" "$dir/noschema.json: no schema: not an acclab.run/1 result" \
  "$acclab" compare "$dir/a.json" "$dir/noschema.json" --out "$out"
edit "$dir/a.json" "$dir/badtime.json" "d['results'][1]['times_s'][3] = 'fast'"
one_line_exit_2 "a time that is not a number" \
  "$dir/badtime.json: results\[1\]: times_s holds \"fast\", not a positive number of seconds" \
  "$acclab" compare "$dir/a.json" "$dir/badtime.json" --out "$out"
edit "$dir/a.json" "$dir/twice.json" "d['results'].append(d['results'][0])"
one_line_exit_2 "a step twice in a file" \
  "$dir/twice.json: results\[4\]: the same step as results\[0\]" \
  "$acclab" compare "$dir/a.json" "$dir/twice.json" --out "$out"
edit "$dir/a.json" "$dir/other.json" "
for r in d['results']: r['params']['nx'] = 64"
one_line_exit_2 "nothing in common" "$dir/other.json: no step in common with the baseline" \
  "$acclab" compare "$dir/a.json" "$dir/other.json" --out "$out"
no_output "nothing in common"
edit "$dir/a.json" "$dir/cuda-only.json" "
d['results'] = [r for r in d['results'] if r['status'] == 'unavailable']"
one_line_exit_2 "in common but none timed in both" "none of its 2 steps in common" \
  "$acclab" compare "$dir/a.json" "$dir/cuda-only.json" --out "$out"
one_line_exit_2 "a folder" "$dir: a folder, not a result file" \
  "$acclab" compare "$dir/a.json" "$dir" --out "$out"
one_line_exit_2 "--format xml" "--format xml: expected text, json or csv" \
  "$acclab" compare "$dir/a.json" "$dir/a.json" --format xml --out "$out"
one_line_exit_2 "--fail-if-slower -5" "--fail-if-slower -5: expected a percentage" \
  "$acclab" compare "$dir/a.json" "$dir/a.json" --fail-if-slower -5 --out "$out"
no_output "bad options"
cp "$dir/slow.json" "$dir/keep.json"
one_line_exit_2 "--out one of the inputs" "--out" \
  "$acclab" compare "$dir/a.json" "$dir/keep.json" --out "$dir/keep.json"
check "--out one of the inputs: the input unchanged" cmp -s "$dir/slow.json" "$dir/keep.json"

echo "$failures failures"
exit $((failures > 0))
