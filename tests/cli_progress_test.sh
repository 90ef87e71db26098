#!/usr/bin/env bash
# Progress where stderr is not a terminal (a CI log, mpirun, nohup): plain lines a few seconds
# apart (ACCLAB_PROGRESS_INTERVAL shortens the 5 s so that a short run shows them) naming the
# step of how many, the run of how many, the time elapsed and an estimate of what is left; none
# with --quiet; nothing added to stdout; apsp and iccg show their solve passing. --preset large
# with only CPU steps warns before it starts.
# usage: cli_progress_test.sh ACCLAB_BINARY TEST_DATA
set -u
acclab=$1
data=$2
source "$(dirname "$0")/checks.sh"  # check
unset ACCLAB_PROGRESS_INTERVAL  # ctest's environment turns the lines off (tests/CMakeLists.txt)

# Two steps of a few runs each: long enough for several 20 ms intervals on any machine.
run_args=(run vector --variant original,acc_kernels --reps 3 --set nt=40 --set nx=1024
          --set ny=1024)
step_line='^acclab: step [12] of 2 \(vector/(original|acc_kernels)\), (setup|warm-up run|run [1-3] of 3|[a-z -]+), [0-9]+ (s|min [0-9]+ s) elapsed, (about [0-9]+ (s|min [0-9]+ s) left|time left not known yet)$'

ACCLAB_PROGRESS_INTERVAL=0.02 "$acclab" "${run_args[@]}" > "$dir/out" 2> "$dir/err"
status=$?
check "run with stderr in a file: exit 0 ($status)" test "$status" -eq 0
check "progress lines appear" grep -q '^acclab: step ' "$dir/err"
check "every stderr line is a progress line" \
  test "$(grep -cE "$step_line" "$dir/err")" -eq "$(wc -l < "$dir/err")"
check "they name step 2 of 2" grep -q '^acclab: step 2 of 2 (vector/acc_kernels)' "$dir/err"
check "they name a timed run" grep -qE ', run [1-3] of 3, ' "$dir/err"
check "they estimate what is left" grep -qE ', about [0-9]+ (s|min [0-9]+ s) left$' "$dir/err"
check "no terminal control bytes in a log" bash -c "! grep -q $'\\r\\|\\e' '$dir/err'"
check "stdout is the table alone" \
  bash -c "! grep -q '^acclab: ' '$dir/out' && grep -q '^acclab run vector' '$dir/out'"

ACCLAB_PROGRESS_INTERVAL=0.02 "$acclab" "${run_args[@]}" --quiet > "$dir/out" 2> "$dir/err"
status=$?
check "--quiet: exit 0 ($status)" test "$status" -eq 0
check "--quiet: nothing on stderr ($(head -c 200 "$dir/err"))" test ! -s "$dir/err"

# Without the variable a line comes every 5 s, so a run of a second or so prints none.
"$acclab" run vector --variant original --reps 1 --set nt=2 > "$dir/out" 2> "$dir/err"
check "a short run at the default interval: nothing on stderr" test ! -s "$dir/err"

ACCLAB_PROGRESS_INTERVAL=0.02 "$acclab" apsp "$data/graphs/test_FW_1000.mtx" \
  --semiring min-plus > "$dir/out" 2> "$dir/err"
status=$?
check "apsp: exit 0 ($status)" test "$status" -eq 0
check "apsp: its solve shows time passing" \
  grep -qE '^acclab: apsp .*test_FW_1000.mtx: [a-z_]+ on 1000 vertices, [0-9]+ s elapsed$' \
  "$dir/err"
ACCLAB_PROGRESS_INTERVAL=0.02 "$acclab" apsp "$data/graphs/test_FW_1000.mtx" \
  --semiring min-plus --quiet > "$dir/out" 2> "$dir/err"
check "apsp --quiet: nothing on stderr" test ! -s "$dir/err"

ACCLAB_PROGRESS_INTERVAL=0.01 "$acclab" iccg "$data/matrices/lap3D_7pt_n20.mtx" \
  > "$dir/out" 2> "$dir/err"
status=$?
check "iccg: exit 0 ($status)" test "$status" -eq 0
check "iccg: its solve shows time passing" \
  grep -qE '^acclab: iccg .*lap3D_7pt_n20.mtx: .*, [0-9]+ s elapsed$' "$dir/err"
ACCLAB_PROGRESS_INTERVAL=0.01 "$acclab" iccg "$data/matrices/lap3D_7pt_n20.mtx" --quiet \
  > "$dir/out" 2> "$dir/err"
check "iccg --quiet: nothing on stderr" test ! -s "$dir/err"

# --preset large, shrunk so that the test is quick: the serial step runs on the CPU wherever
# acclab runs, so the warning comes first, once, and the run goes on (exit 0).
large=(run vector --variant original --preset large --set nx=64 --set ny=64 --set nt=1
       --reps 1)
"$acclab" "${large[@]}" --quiet > "$dir/out" 2> "$dir/err"
status=$?
check "--preset large on the CPU: exit 0 ($status)" test "$status" -eq 0
check "--preset large on the CPU: one warning line that it can take hours" \
  bash -c "test \$(wc -l < '$dir/err') -eq 1 &&
           grep -q '^acclab: warning: --preset large .*CPU only, which can take hours' '$dir/err'"
"$acclab" run vector --variant original --preset small --set nt=1 --reps 1 > "$dir/out" \
  2> "$dir/err"
check "--preset small: no warning" test ! -s "$dir/err"
exit $((failures > 0))
