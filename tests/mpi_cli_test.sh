#!/usr/bin/env bash
# What acclab refuses under mpirun whatever the workload: ranks given different arguments (each
# would run its own problem and the collectives would pair up the wrong steps), and a command
# with no MPI step (iccg) on several ranks, which would solve the whole system once a rank. Each
# is one line from rank 0 and exit 2 from every rank; one rank alone is no refusal.
# usage: mpi_cli_test.sh ACCLAB_BINARY MPIEXEC TEST_DATA
set -u
acclab=$1
mpiexec=$2
data=$3
source "$(dirname "$0")/checks.sh"     # check, one_line_exit_2
source "$(dirname "$0")/mpi_checks.sh"  # launch

run_args=(run jacobi2d --variant mpi_openmp --set rows=34 --set cols=34 --reps 1)
one_line_exit_2 "ranks given different arguments" "rank 1 was given other arguments than rank 0" \
  launch 1 "$acclab" "${run_args[@]}" : -np 1 "$acclab" "${run_args[@]}" --set iters=7
check "the line shows both command lines" grep -q -- "--set iters=7 against run jacobi2d" \
  "$dir/err"
launch 2 "$acclab" "${run_args[@]}" > "$dir/out" 2> "$dir/err"
status=$?
check "the same arguments on 2 ranks: exit 0 (exit $status: $(cat "$dir/err"))" \
  test "$status" -eq 0

bus=$data/matrices/494_bus.mtx
one_line_exit_2 "iccg on 2 ranks" "under mpirun with 2 ranks every rank would solve" \
  launch 2 "$acclab" iccg "$bus" --out "$dir/x.mtx"
check "iccg on 2 ranks: nothing written" test ! -e "$dir/x.mtx"
launch 1 "$acclab" iccg "$bus" > "$dir/out" 2> "$dir/err"
status=$?
check "iccg on 1 rank: exit 0 (exit $status: $(cat "$dir/err"))" test "$status" -eq 0
exit $((failures > 0))
