#!/usr/bin/env bash
# acclab report and run/ladder --report: the page of a recorded run, of a real ladder, of several
# runs (compare's table, one shared roofline), of two workloads and of a hundred steps, each
# checked by report_page_check.py (every step present, every chart well-formed XML, nothing
# loaded from the network); bad input (one line, exit 2, no page); a renderer that fails or is
# interrupted (no page, the old one kept).
# usage: report_test.sh ACCLAB_BINARY DATA_DIR
set -u
acclab=$1
recorded=$2/compare/vector_run.json
here=$(dirname "$0")
source "$here/checks.sh"  # check, one_line_exit_2
unset ACCLAB_PROGRESS_INTERVAL ACCLAB_SCRIPTS
page_check() { python3 "$here/report_page_check.py" "$@"; }
no_temporaries() { test -z "$(find "$dir" -name '.*.tmp-*')"; }

# --- a recorded run ------------------------------------------------------------------------------
"$acclab" report "$recorded" --out "$dir/recorded.html" 2> "$dir/err"
status=$?
check "recorded run: exit 0 ($status; $(head -c 300 "$dir/err"))" test "$status" -eq 0
check "recorded run: nothing on stderr" test ! -s "$dir/err"
check "recorded run: the page's structure" page_check "$dir/recorded.html" "$recorded"
check "recorded run: the unavailable CUDA steps said so" \
  grep -q 'data-variant="triad_cuda".*unavailable' "$dir/recorded.html"
check "recorded run: a step's note" grep -q 'busy machine: 1.3 of 2 cores' "$dir/recorded.html"
check "recorded run: the provenance: commit and command line" \
  grep -q 'd9fa7506ff03f6909b849694d7a8514a48832ffb.*' "$dir/recorded.html"
check "recorded run: no compute peak recorded, said so" \
  grep -q 'record no compute peak' "$dir/recorded.html"
check "recorded run: no comparison section with one file" \
  test "$(grep -c 'id="comparison"' "$dir/recorded.html")" -eq 0
check "recorded run: the provenance's command line wraps" \
  grep -q '<dt>command line</dt><dd><code class="wrap">' "$dir/recorded.html"

# --- compute roofs -------------------------------------------------------------------------------
# An H200 matmul written before results recorded peaks: the report works them out from the card's
# published configuration, and draws FP64 roofs (matmul's precision) above cuda_tiled and cuBLAS.
gpu_matmul=$2/report/matmul_h200_large.json
"$acclab" report "$gpu_matmul" --out "$dir/gpu.html" 2> "$dir/err"
status=$?
check "GPU matmul: exit 0 ($status; $(head -c 300 "$dir/err"))" test "$status" -eq 0
check "GPU matmul: the page's structure, no overlapping labels" \
  page_check "$dir/gpu.html" "$gpu_matmul"
in_chart() { python3 -c "import re, sys
svgs = re.findall(r'<svg\b.*?</svg>', open(sys.argv[1]).read(), flags=re.S)
sys.exit(0 if any(sys.argv[2] in svg for svg in svgs) else 1)" "$@"; }
check "GPU matmul: the FP64 roof drawn" in_chart "$dir/gpu.html" 'GPU FP64 33.5 TFLOP/s'
check "GPU matmul: the FP64 tensor roof drawn" in_chart "$dir/gpu.html" 'GPU FP64 tensor 66.9 TFLOP/s'
check "GPU matmul: no FP32 roof for an FP64 workload" \
  test "$(grep -c 'GPU FP32' "$dir/gpu.html")" -eq 0
check "GPU matmul: the caption says how the peaks were worked out" \
  grep -q 'worked out by the report, the file records none: 132 SMs × 1980 MHz' "$dir/gpu.html"
check "GPU matmul: cuda_tiled and cublas under the FP64 tensor roof" python3 -c "import json, sys
rates = {r['variant']: r['gflops'] for r in json.load(open(sys.argv[1]))['results']}
sys.exit(0 if max(rates['cuda_tiled'], rates['cublas']) < 2 * 132 * 1.98 * 128 else 1)" \
  "$gpu_matmul"

# A run that records its peaks (host.peak_gflops) gets the host's roof of its precision (vector
# computes in float), and vs 1st / vs prev worked out for a family of two steps (acclab run
# records no speedups).
python3 -c "import json, sys; d = json.load(open(sys.argv[1]))
d['host']['peak_gflops'] = {'fp64': 83.1, 'fp32': 166.2, 'origin': 'nominal: a test figure'}
r = next(r for r in d['results'] if r['variant'] == 'triad_openmp')
d['results'].append(dict(r, variant='triad_twice_as_fast', step=2,
                         times_s=[t / 2 for t in r['times_s']], gflops=2 * r['gflops'],
                         gbytes_per_s=2 * r['gbytes_per_s']))
json.dump(d, open(sys.argv[2], 'w'))" "$recorded" "$dir/peaks.json"
"$acclab" report "$dir/peaks.json" --out "$dir/peaks.html" 2> "$dir/err"
status=$?
check "recorded peaks: exit 0 ($status; $(head -c 300 "$dir/err"))" test "$status" -eq 0
check "recorded peaks: the page's structure" page_check "$dir/peaks.html" "$dir/peaks.json"
check "recorded peaks: the host's FP32 roof drawn" in_chart "$dir/peaks.html" \
  'host FP32 166.2 GFLOP/s'
check "recorded peaks: no FP64 roof for a float workload" \
  test "$(grep -c 'host FP64' "$dir/peaks.html")" -eq 0
check "recorded peaks: the recorded origin in the caption" \
  grep -q 'nominal: a test figure' "$dir/peaks.html"
python3 -c "import json, sys; d = json.load(open(sys.argv[1]))
d['host']['peak_gflops'] = {'fp64': None, 'fp32': None, 'missing': 'no clock in the test'}
json.dump(d, open(sys.argv[2], 'w'))" "$recorded" "$dir/no-peaks.json"
"$acclab" report "$dir/no-peaks.json" --out "$dir/no-peaks.html" 2> "$dir/err"
check "a peak recorded missing: no roof, and the reason said" \
  grep -q 'so no flat roof is drawn. Why: host: no clock in the test' "$dir/no-peaks.html"
check "run results: vs 1st and vs prev worked out within the family" \
  grep -q 'data-variant="triad_twice_as_fast".*against triad_openmp, no noise test">2.00x</span>' \
  "$dir/peaks.html"

# --- a real ladder, its page written by --report -----------------------------------------------
"$acclab" ladder vector --preset small --reps 3 --quiet --format json --out "$dir/ladder.json" \
  --report "$dir/ladder.html" 2> "$dir/err"
status=$?
check "ladder --report: exit 0 ($status; $(head -c 300 "$dir/err"))" test "$status" -eq 0
check "ladder --report: the page's structure" page_check "$dir/ladder.html" "$dir/ladder.json"
check "ladder --report: the page names its run file" grep -q "$dir/ladder.json" "$dir/ladder.html"
check "ladder: the host's peaks recorded (or why not) and each step's precision" \
  python3 -c "import json, sys; d = json.load(open(sys.argv[1])); p = d['host']['peak_gflops']
ok = isinstance(p.get('fp64'), float) and p['fp32'] == 2 * p['fp64'] and 'nominal' in p['origin']
ok = ok or (p.get('fp64') is None and p.get('missing'))
sys.exit(0 if ok and all(r['precision'] == 'fp32' for r in d['results']) else 1)" \
  "$dir/ladder.json"
"$acclab" run vector --variant original --reps 1 --quiet --report "$dir/table.html" \
  > "$dir/table.txt" 2> "$dir/err"
status=$?
check "run --report with the table on stdout: exit 0 ($status)" test "$status" -eq 0
check "run --report with the table on stdout: the table printed" \
  grep -q '^course .*original' "$dir/table.txt"
check "run --report with the table on stdout: the page, its run named 'this run'" \
  grep -q 'this run' "$dir/table.html"

# --- several runs: compare's table and one roofline ---------------------------------------------
python3 -c "import json,sys; d=json.load(open(sys.argv[1]))
r = next(r for r in d['results'] if r['variant'] == 'original')
r['times_s'] = [1.2 * t for t in r['times_s']]
json.dump(d, open(sys.argv[2], 'w'))" "$recorded" "$dir/slow.json"
"$acclab" report "$recorded" "$dir/slow.json" "$dir/ladder.json" --out "$dir/three.html" \
  2> "$dir/err"
status=$?
check "three runs: exit 0 ($status; $(head -c 300 "$dir/err"))" test "$status" -eq 0
check "three runs: the page's structure, one roofline for all" \
  page_check "$dir/three.html" "$recorded" "$dir/slow.json" "$dir/ladder.json"
check "three runs: compare's verdict for the slowed step" \
  grep -q '<td>B vs A</td><td><code>vector/original</code>.*<b>slower</b>' "$dir/three.html"
check "three runs: the ladder (other parameters) left out of the comparison, and why" \
  grep -q "Not compared, shown above only: $dir/ladder.json: no step in common" "$dir/three.html"

# Two workloads: nothing to compare, and said why.
"$acclab" run jacobi2d --variant serial --reps 1 --quiet --format json --out "$dir/jacobi.json"
"$acclab" report "$recorded" "$dir/jacobi.json" --out "$dir/two.html" 2> "$dir/err"
status=$?
check "two workloads: exit 0 ($status; $(head -c 300 "$dir/err"))" test "$status" -eq 0
check "two workloads: the page's structure" page_check "$dir/two.html" "$recorded" \
  "$dir/jacobi.json"
check "two workloads: not compared, and why" grep -q 'Not compared: .*no step in common' \
  "$dir/two.html"

# A hundred steps: the ladder chart grows with them, the tables scroll.
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); steps = d['results']
d['results'] = [dict(steps[k % 2], variant=f'step_{k:03}') for k in range(100)]
json.dump(d, open(sys.argv[2], 'w'))" "$recorded" "$dir/hundred.json"
"$acclab" report "$dir/hundred.json" --out "$dir/hundred.html" 2> "$dir/err"
status=$?
check "a hundred steps: exit 0 ($status; $(head -c 300 "$dir/err"))" test "$status" -eq 0
check "a hundred steps: the page's structure" page_check "$dir/hundred.html" "$dir/hundred.json"
check "a hundred steps: the ladder chart at least 1500 pt tall" python3 -c "import re,sys
page = open(sys.argv[1]).read()
heights = [float(h) for h in re.findall(r'<svg[^>]* height=\"([0-9.]+)pt\"', page)]
sys.exit(0 if heights and heights[0] >= 1500 else 1)" "$dir/hundred.html"
check "a hundred steps: the steps table in a scrolling box" \
  grep -q '<div class="scroll"><table><thead><tr><th>#</th>' "$dir/hundred.html"

# --- bad input: one line, exit 2, no page --------------------------------------------------------
bad() {  # bad WHAT TEXT ARGS...: acclab report ARGS --out $dir/bad.html refused, nothing written
  local what=$1 text=$2
  shift 2
  one_line_exit_2 "$what" "$text" "$acclab" report "$@" --out "$dir/bad.html"
  check "$what: no page" test ! -e "$dir/bad.html"
}
: > "$dir/empty.json"
echo '{"schema": "acclab.run/1", "results": [' > "$dir/truncated.json"
echo '{"schema": "acclab.compare/1", "rows": []}' > "$dir/compare.json"
echo '{"schema": "acclab.run/1"}' > "$dir/no-results.json"
echo '{"schema": "acclab.run/1", "results": []}' > "$dir/no-steps.json"
bad "a missing file" "$dir/missing.json: cannot be read" "$dir/missing.json"
bad "an empty file" "empty file, not an acclab.run/1 result" "$dir/empty.json"
bad "a truncated file" "not JSON" "$dir/truncated.json"
bad "a compare report" "schema \"acclab.compare/1\", not acclab.run/1" "$dir/compare.json"
bad "no results list" "without a results list" "$dir/no-results.json"
bad "no results" "holds no result" "$dir/no-steps.json"
bad "a folder" "a folder, not a result file" "$dir"
bad "a bad second file" "$dir/empty.json: empty file" "$recorded" "$dir/empty.json"
bad "no file" "no result file given"
one_line_exit_2 "no --out" "--out is required" "$acclab" report "$recorded"
one_line_exit_2 "--out in a missing folder" "no directory" \
  "$acclab" report "$recorded" --out "$dir/none/page.html"
cp "$recorded" "$dir/input.json"
one_line_exit_2 "--out naming the input" "is the input" \
  "$acclab" report "$dir/input.json" --out "$dir/input.json"
check "--out naming the input: the input kept" cmp -s "$recorded" "$dir/input.json"
one_line_exit_2 "run --report in a missing folder, before the run" "--report" \
  "$acclab" run vector --variant original --reps 1 --quiet --report "$dir/none/page.html"
one_line_exit_2 "run --report the same file as --out" "the same output as --out" \
  "$acclab" run vector --variant original --reps 1 --quiet --format json --out "$dir/same" \
  --report "$dir/same"
check "run --report the same file as --out: nothing written" test ! -e "$dir/same"
mkdir "$dir/no-scripts"
ACCLAB_SCRIPTS=$dir/no-scripts one_line_exit_2 "no renderer in ACCLAB_SCRIPTS" \
  "no executable report-html.py in $dir/no-scripts" \
  "$acclab" report "$recorded" --out "$dir/bad.html"
check "no renderer: no page" test ! -e "$dir/bad.html"

# --- a renderer that fails, or is interrupted: no page, the old one kept --------------------------
mkdir "$dir/failing" "$dir/slow"
cat > "$dir/failing/report-html.py" << 'EOF'
#!/bin/sh
[ "$1" = --check ] && exit 0
cat > /dev/null
echo '<!DOCTYPE html><html><body>half'
echo "report-html: something broke" >&2
exit 1
EOF
cat > "$dir/slow/report-html.py" << EOF
#!/bin/sh
[ "\$1" = --check ] && exit 0
cat > /dev/null
touch "$dir/slow/started"
sleep 30
echo '<!DOCTYPE html><html></html>'
EOF
chmod +x "$dir/failing/report-html.py" "$dir/slow/report-html.py"
echo "the old page" > "$dir/old.html"
ACCLAB_SCRIPTS=$dir/failing "$acclab" report "$recorded" --out "$dir/old.html" > "$dir/out" \
  2> "$dir/err"
status=$?
check "a failing renderer: exit 1 ($status)" test "$status" -eq 1
check "a failing renderer: one line saying why" \
  test "$(wc -l < "$dir/err")" -eq 1 -a -n "$(grep 'something broke' "$dir/err")"
check "a failing renderer: the old page kept" grep -qx "the old page" "$dir/old.html"
# Interrupted as Ctrl-C interrupts: SIGINT to the whole process group, renderer included. Job
# control on (set -m): a background job of a script otherwise ignores SIGINT, and gets its own
# process group.
set -m
ACCLAB_SCRIPTS=$dir/slow "$acclab" report "$recorded" --out "$dir/old.html" > "$dir/out" \
  2> "$dir/err" &
pid=$!
set +m
for _ in $(seq 100); do [[ -e $dir/slow/started ]] && break; sleep 0.1; done
check "interrupted: the renderer started" test -e "$dir/slow/started"
kill -INT -- "-$pid"
wait "$pid"
status=$?
check "interrupted: ended by SIGINT ($status)" test "$status" -eq 130
check "interrupted: the old page kept" grep -qx "the old page" "$dir/old.html"
check "no temporary files left" no_temporaries

if ((failures)); then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all report checks passed"
