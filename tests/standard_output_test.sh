#!/usr/bin/env bash
# What a command writes to standard output arrives, or the command says it did not: every
# command, help and version with standard output on a full device (a node of our own, never the
# machine's /dev), and redirected into a full file system, where the part that did arrive is
# taken back rather than left as a cut-off JSON document (apps/acclab/standard_output.hpp).
# usage: standard_output_test.sh ACCLAB_BINARY DATA_DIR
set -u
acclab=$(realpath "$1")
data=$(realpath "$2")
source "$(dirname "$0")/checks.sh"
cd "$dir" || exit 1
unset ACCLAB_PROGRESS_INTERVAL

graph=$data/graphs/polbooks.mtx
matrix=$data/matrices/494_bus.mtx
"$acclab" run vector --variant original --reps 5 --format json --out a.json --quiet 2> err ||
  { echo "FAILED: a result file to compare ($(head -c 300 err))"; exit 1; }
cp a.json b.json

# Each case: a name, then the command's arguments.
cases=(
  "run|run vector --variant original --reps 1 --quiet"
  "run json|run vector --variant original --reps 1 --format json --quiet"
  "ladder|ladder vector --variant original,acc_kernels --reps 1 --quiet"
  "list|list"
  "list json|list --format json"
  "info|info"
  "info json|info --format json"
  "explain|explain vector/acc_kernels"
  "tune|tune jacobi2d --variant omp_target_tuned --set rows=34 --set cols=34 --set iters=2 --set omp_teams=64 --set omp_threads=128 --evals 2 --reps 1 --quiet"
  "compare|compare a.json b.json"
  "compare json|compare a.json b.json --format json"
  "report|report a.json --out -"
  "apsp|apsp $graph --semiring min-plus --quiet"
  "apsp json|apsp $graph --semiring min-plus --format json --quiet"
  "iccg|iccg $matrix --quiet"
  "iccg json|iccg $matrix --format json --quiet"
  "help|--help"
  "run help|run --help"
  "version|--version"
)

# The full device: 1,7 reads as /dev/full (ENOSPC on every write). Where nodes cannot be made or
# opened (not root, a rootless container), the pipe case below still runs.
if mknod full c 1 7 2> /dev/null && : > full; then
  for entry in "${cases[@]}"; do
    name=${entry%%|*}
    read -r -a words <<< "${entry#*|}"
    "$acclab" "${words[@]}" > full 2> err
    status=$?
    check "$name > FULL: exit non-zero ($status)" test $status -ne 0
    check "$name > FULL: one line on stderr ($(head -c 300 err))" test "$(wc -l < err)" -eq 1
    check "$name > FULL: it names standard output or -" grep -Eq "standard output|--out -" err
    check "$name > FULL: it says the disk is full" grep -q "No space left on device" err
  done
else
  echo "note: device nodes cannot be made or opened here: the full-device rows are left out"
fi

# Standard output closed: every write fails (EBADF), which is no success either.
"$acclab" list >&- 2> err
status=$?
check "list with standard output closed: exit non-zero ($status)" test $status -ne 0
check "list with standard output closed: one line" test "$(wc -l < err)" -eq 1

# A reader that leaves: the write error (EPIPE) is reported, not a silent death by SIGPIPE.
# `true` is gone long before a run prints its table (a fast command could fill the pipe's
# buffer before its reader left, and rightly succeed).
"$acclab" run vector --variant original --reps 1 --quiet 2> err | true
status=${PIPESTATUS[0]}
check "run | true: exit non-zero ($status)" test "$status" -ne 0
check "run | true: it says the pipe broke" grep -q "Broken pipe" err

# A file system with a few KiB free: the JSON would be cut off mid-document.
if mount_small_fs 16k; then
  head -c 8192 /dev/zero > small/filler 2> /dev/null
  "$acclab" run jacobi2d --reps 1 --format json --quiet > small/r.json 2> err
  status=$?
  check "run json > SMALL-FS: exit 2 ($status)" test $status -eq 2
  check "run json > SMALL-FS: one line ($(head -c 300 err))" test "$(wc -l < err)" -eq 1
  check "run json > SMALL-FS: names standard output" grep -q "standard output" err
  check "run json > SMALL-FS: no cut-off document left ($(wc -c < small/r.json) bytes)" \
    test ! -s small/r.json

  # What came before acclab in the same file stays; only acclab's part is taken back.
  { echo "header"; "$acclab" run jacobi2d --reps 1 --format json --quiet; } > small/r.json 2> err
  check "after a header: the header alone remains" test "$(cat small/r.json)" = "header"

  # Appending (>>): other writers may share the end, so nothing is cut, but the status says it.
  rm -f small/r.json
  "$acclab" run jacobi2d --reps 1 --format json --quiet >> small/r.json 2> err
  status=$?
  check "run json >> SMALL-FS: exit 2 ($status)" test $status -eq 2

  # With no byte free: an empty file and status 0 would read as an empty result.
  head -c 65536 /dev/zero >> small/filler 2> /dev/null
  rm -f small/r.json
  "$acclab" list --format json > small/r.json 2> err
  status=$?
  check "list json > FULL-FS: exit 2 ($status)" test $status -eq 2
  umount small
else
  echo "note: no tmpfs mount allowed here: the full file system rows are left out"
fi

echo "$failures failure(s)"
exit $((failures > 0))
