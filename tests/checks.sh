# Sourced by the shell tests: `check DESCRIPTION CONDITION...` runs the condition, prints
# "ok: ..." or "FAILED: ...", and counts the failures in $failures.
failures=0

# The test's scratch folder, removed when the test exits; a test that must clean up more (a
# mount, a background process) makes $dir and its own trap before sourcing this file.
if [[ -z ${dir:-} ]]; then
  dir=$(mktemp -d)
  trap 'rm -rf "$dir"' EXIT
fi

check() {
  local what=$1
  shift
  if "$@"; then echo "ok: $what"; else echo "FAILED: $what"; failures=$((failures + 1)); fi
}

# Bad input: `one_line_exit_2 WHAT TEXT COMMAND...` runs COMMAND (stdout and stderr to $dir/out
# and $dir/err) and checks exit status 2 and one stderr line holding TEXT (under mpirun: one
# line from rank 0, exit 2 from every rank).
one_line_exit_2() {  # $1: what; $2: text the line must hold; the rest: the command
  local what=$1 text=$2
  shift 2
  "$@" > "$dir/out" 2> "$dir/err"
  local status=$?
  check "$what: exit 2 ($status)" test $status -eq 2
  check "$what: one line on stderr" test "$(wc -l < "$dir/err")" -eq 1
  check "$what: it says '$text'" grep -q -- "$text" "$dir/err"
}
