# Sourced by the shell tests: `check DESCRIPTION CONDITION...` runs the condition, prints
# "ok: ..." or "FAILED: ...", and counts the failures in $failures.
failures=0

# The test's scratch folder, removed when the test exits (a file system mount_small_fs mounted in
# it unmounted first); a test that must clean up more (a background process) makes $dir and its
# own trap before sourcing this file.
if [[ -z ${dir:-} ]]; then
  dir=$(mktemp -d)
  remove_dir() {
    if mountpoint -q "$dir/small" 2> /dev/null; then umount "$dir/small"; fi
    rm -rf "$dir"
  }
  trap remove_dir EXIT
fi

# `mount_small_fs SIZE`: a tmpfs of SIZE at $dir/small, for writes that fill a file system; fails
# where this machine allows no mount (not root).
mount_small_fs() {
  mkdir -p "$dir/small" && mount -t tmpfs -o size="$1" tmpfs "$dir/small" 2> /dev/null
}

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
