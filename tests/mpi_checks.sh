# Sourced by the MPI shell tests after checks.sh, with $mpiexec and $dir set.
# `launch NP COMMAND...` starts COMMAND on NP ranks. Root needs --allow-run-as-root (CI and the
# GPU machine run as root); -q drops Open MPI's banner about processes that exited with a
# non-zero status, so that acclab's line is the only one.
# In containers without ptrace rights Open MPI's shared-memory single copy (CMA) fails with
# "Read -1, expected ..." on stderr; the copy-in/copy-out path works everywhere.
export OMPI_MCA_btl_vader_single_copy_mechanism=none
launch() { local np=$1; shift; "$mpiexec" --allow-run-as-root --oversubscribe -q -np "$np" "$@"; }

# Bad input: one line from rank 0, exit 2, from every rank.
one_line_exit_2() {  # $1: what; $2: text the line must hold; the rest: the command
  local what=$1 text=$2
  shift 2
  "$@" > "$dir/out" 2> "$dir/err"
  local status=$?
  check "$what: exit 2 ($status)" test $status -eq 2
  check "$what: one line on stderr" test "$(wc -l < "$dir/err")" -eq 1
  check "$what: it says '$text'" grep -q -- "$text" "$dir/err"
}
