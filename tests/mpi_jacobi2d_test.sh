#!/usr/bin/env bash
# jacobi2d's mpi_* steps under mpirun, as CI runs them (no GPU: OpenACC on the host): every
# step on 1 to 4 ranks equals the serial grid bit for bit, uneven blocks and forced process
# grids included, tol mode takes the serial sweeps, rank 0 alone writes --out, and bad input is
# one line and exit 2 from every rank.
# usage: mpi_jacobi2d_test.sh ACCLAB_BINARY MPIEXEC
set -u
acclab=$1
mpiexec=$2
source "$(dirname "$0")/checks.sh"
source "$(dirname "$0")/mpi_checks.sh"

# $1: the JSON report; $2: ranks; $3: the process grid expected ("" for any that fits).
check_report() { check_stencil_report "$1" "$2" "$3" 2 max_diff_vs_serial; }

check_on_1_to_4_ranks jacobi2d grid --reps 1

# Uneven blocks: the small grid's 256 x 128 interior over 3 ranks one way, then the other.
for grid in 3x1 1x3; do
  check_on_3_ranks_as $grid jacobi2d grid --reps 1
done

# tol mode: the sweeps of the serial run, the change reduced over ranks at each check.
"$acclab" run jacobi2d --variant serial --reps 1 --set tol=1e-2 --set check_every=7 \
  --format json > "$dir/serial.json"
serial=$(python3 -c 'import json, sys; print(json.load(sys.stdin)["results"][0]["outputs"]["sweeps"])' < "$dir/serial.json")
launch 4 "$acclab" run jacobi2d --variant 'mpi_*' --reps 1 --set tol=1e-2 --set check_every=7 \
  --format json --out "$dir/tol.json" > /dev/null 2>&1
check "tol mode, 4 ranks: exit 0" test $? -eq 0
check "tol mode, 4 ranks: every step verified in the serial $serial sweeps" python3 -c "
import json, sys
for r in json.load(open('$dir/tol.json'))['results']:
    if r['variant'] == 'mpi_cuda' and r['status'] == 'unavailable': continue
    assert r['status'] == 'verified', r.get('error')
    assert r['outputs']['sweeps'] == $serial, r['outputs']['sweeps']
    assert r['outputs']['points_differing_from_serial'] == 0
"

# Bad input: one line from rank 0, exit 2, from every rank (one_line_exit_2: mpi_checks.sh).
one_line_exit_2 "a proc_grid of 4 ranks on 3" "proc_grid=2x2" \
  launch 3 "$acclab" run jacobi2d --variant 'mpi_*' --set proc_grid=2x2
one_line_exit_2 "more ranks along a side than rows" "more ranks along a side" \
  launch 4 "$acclab" run jacobi2d --variant mpi_openmp --set rows=5 --set proc_grid=4x1
one_line_exit_2 "a step that is not an MPI step on 2 ranks" "serial is not an MPI step" \
  launch 2 "$acclab" run jacobi2d --variant serial
one_line_exit_2 "a bad --set on 2 ranks" "--set rows" \
  launch 2 "$acclab" run jacobi2d --variant 'mpi_*' --set rows=x
check "no report written by a refused run" test ! -e "$dir/out.json"
exit $((failures > 0))
