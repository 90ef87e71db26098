#!/usr/bin/env bash
# Outputs never harm what they name (core/atomic_file.hpp, docs/bad-input.md): every command
# that writes (run, apsp, iccg) against a device node and a full device made with mknod in a
# scratch folder (never the machine's own /dev), a FIFO, symbolic links, "-", a block device, a
# socket and a full file system. As root (CI, the GPU machine) a rename over /dev/null would
# succeed: these nodes must stay what they are.
# usage: output_paths_test.sh ACCLAB_BINARY DATA_DIR
set -u
acclab=$(realpath "$1")
data=$(realpath "$2")
source "$(dirname "$0")/checks.sh"
cd "$dir" || exit 1

kind() { stat -c %F "$1"; }
is_json() { python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$1"; }

graph=$data/graphs/polbooks.mtx
matrix=$data/matrices/494_bus.mtx
# Each command that writes, with its --out last; $1 of each is the output path.
run_cmd() { "$acclab" run vector --variant original --reps 1 --format json --out "$1"; }
apsp_cmd() { "$acclab" apsp "$graph" --semiring min-plus --out-format csv --out "$1"; }
iccg_cmd() { "$acclab" iccg "$matrix" --out "$1"; }

# Device nodes of our own: 1,3 reads as /dev/null, 1,7 as /dev/full (ENOSPC on every write).
# Where nodes cannot be made or opened (not root, a rootless container, a nodev /tmp), the device
# rows are left out with a note; CI and the GPU machine run as root.
if mknod null c 1 3 2> /dev/null && mknod full c 1 7 && mknod disk b 7 0 && : > null; then
  have_nodes=1
else
  have_nodes=0
  echo "note: device nodes cannot be made or opened here: the device rows are left out"
fi

for command in run apsp iccg; do
  cmd=${command}_cmd
  if ((have_nodes)); then
    $cmd null > out 2> err
    status=$?
    check "$command --out CHAR-DEVICE: exit 0 ($status: $(head -c 200 err))" test $status -eq 0
    check "$command --out CHAR-DEVICE: still a character device" \
      test "$(kind null)" = "character special file"

    $cmd full > out 2> err
    status=$?
    check "$command --out FULL-DEVICE: exit 2 ($status)" test $status -eq 2
    check "$command --out FULL-DEVICE: one line" test "$(wc -l < err)" -eq 1
    check "$command --out FULL-DEVICE: says the disk is full" grep -q "No space left on device" err
    check "$command --out FULL-DEVICE: names the option and the path ($(cat err))" \
      grep -q "^acclab: --out full: " err
    check "$command --out FULL-DEVICE: still a character device" \
      test "$(kind full)" = "character special file"

    $cmd disk > out 2> err
    status=$?
    check "$command --out BLOCK-DEVICE: refused, exit 2 ($status)" test $status -eq 2
    check "$command --out BLOCK-DEVICE: says why" grep -q "is a block device" err
    check "$command --out BLOCK-DEVICE: still a block device" \
      test "$(kind disk)" = "block special file"
  fi

  rm -f fifo got
  mkfifo fifo
  # A writer that never opens the FIFO must not hang the test.
  timeout 120 cat fifo > got &
  reader=$!
  $cmd fifo > out 2> err
  status=$?
  wait $reader
  check "$command --out FIFO: exit 0 ($status: $(head -c 200 err))" test $status -eq 0
  check "$command --out FIFO: still a FIFO" test "$(kind fifo)" = "fifo"
  check "$command --out FIFO: the reader got the output" test -s got

  rm -f target link chain
  echo "old content" > target
  chmod 640 target
  ln -s target link
  ln -s link chain
  $cmd chain > out 2> err
  status=$?
  check "$command --out LINK-TO-LINK: exit 0 ($status)" test $status -eq 0
  check "$command --out LINK-TO-LINK: the links stay links" test -L chain -a -L link
  check "$command --out LINK-TO-LINK: the final target replaced" \
    test "$(head -c 11 target)" != "old content"
  check "$command --out LINK-TO-LINK: the target keeps its permissions" \
    test "$(stat -c %a target)" = 640
  check "$command --out LINK-TO-LINK: no temporary left" \
    test -z "$(find . -maxdepth 1 -name '.*.tmp-*')"

  rm -f dangling created
  ln -s created dangling
  $cmd dangling > out 2> err
  status=$?
  check "$command --out DANGLING-LINK: exit 0 ($status)" test $status -eq 0
  check "$command --out DANGLING-LINK: the link stays, its target created" \
    test -L dangling -a -f created -a -s created
done

# A FIFO nobody reads yet: acclab says that it waits, and a reader that comes later gets the
# output; SIGTERM while it waits ends it with a line (never a silent hang).
wait_for_line() {  # $1: text; waits up to 60 s for it in err
  for _ in $(seq 600); do grep -q "$1" err && return 0; sleep 0.1; done
  return 1
}
rm -f fifo got
mkfifo fifo
iccg_cmd fifo > out 2> err &
writer=$!
check "iccg --out FIFO WITHOUT READER: says it waits" wait_for_line "waiting for a reader"
timeout 60 cat fifo > got
wait $writer
status=$?
check "iccg --out FIFO WITHOUT READER: exit 0 once read ($status)" test $status -eq 0
check "iccg --out FIFO WITHOUT READER: the late reader got the output" test -s got
# acclab itself in the background (a shell function there would be a subshell's PID).
"$acclab" iccg "$matrix" --out fifo > out 2> err &
writer=$!
wait_for_line "waiting for a reader"
kill -TERM $writer
wait $writer
status=$?
check "iccg --out FIFO, SIGTERM while waiting: exit 143 ($status)" test $status -eq 143
check "iccg --out FIFO, SIGTERM while waiting: says so" grep -q "terminated (SIGTERM)" err
check "iccg --out FIFO, SIGTERM while waiting: two lines ($(cat err))" test "$(wc -l < err)" -eq 2

# Ctrl-C during a run: one line, status 130, and the output's old content kept. Job control on,
# so that the background job keeps SIGINT (a non-interactive shell's jobs ignore it otherwise).
echo "old content" > interrupted.json
set -m
"$acclab" run jacobi2d --preset seed --reps 50 --format json --out interrupted.json > out 2> err &
runner=$!
set +m
sleep 2
kill -INT $runner
wait $runner
status=$?
check "run interrupted by SIGINT: exit 130 ($status)" test $status -eq 130
check "run interrupted by SIGINT: says so ($(tail -c 200 err))" grep -q "interrupted (SIGINT)" err
check "run interrupted by SIGINT: the old output kept" \
  test "$(cat interrupted.json)" = "old content"
check "run interrupted by SIGINT: no temporary left" \
  test -z "$(find . -maxdepth 1 -name '.interrupted.json.tmp-*')"

# "-" is stdout, written directly.
"$acclab" run vector --variant original --reps 1 --format json --out - > stdout.json 2> err
status=$?
check "run --out -: exit 0 ($status)" test $status -eq 0
check "run --out -: the report on stdout" is_json stdout.json
check "run --out -: no file named -" test ! -e ./-

# This process's own descriptors: written to, never resolved to a path and renamed over.
echo "first line" > log
"$acclab" run vector --variant original --reps 1 --format json --out /dev/stdout >> log 2> err
status=$?
check "run --out /dev/stdout >> FILE: exit 0 ($status: $(head -c 200 err))" test $status -eq 0
check "run --out /dev/stdout >> FILE: appended, the first line kept" \
  test "$(head -1 log)" = "first line" -a "$(sed -n 2p log)" = "{"
"$acclab" run vector --variant original --reps 1 --format json --out /dev/stdout 2> err | cat > piped
check "run --out /dev/stdout | cat: the report through the pipe" is_json piped
"$acclab" run vector --variant original --reps 1 --format json --out >(cat > substituted) 2> err
status=$?
sleep 1
check "run --out >(cat): exit 0 ($status: $(head -c 200 err))" test $status -eq 0
check "run --out >(cat): the report through it" is_json substituted
# A reader gone before the report is written (true exits at once; the run takes longer).
"$acclab" run vector --variant original --reps 1 --format json --out - 2> err | true
status=${PIPESTATUS[0]}
check "run --out - | true: the broken pipe reported, exit 2 ($status)" test "$status" -eq 2
check "run --out - | true: says so" grep -q "Broken pipe" err

python3 -c 'import socket, sys; s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' sock
"$acclab" run vector --variant original --reps 1 --out sock > out 2> err
status=$?
check "run --out SOCKET: refused, exit 2 ($status)" test $status -eq 2
check "run --out SOCKET: still a socket" test "$(kind sock)" = "socket"

# A regular file on a full file system: the old file stays whole, no temporary is left.
if mount_small_fs 16k; then
  echo "previous report" > small/report.json
  head -c 12000 /dev/zero > small/filler 2> /dev/null
  "$acclab" run vector --variant original --reps 1 --format json --out small/report.json > out 2> err
  status=$?
  check "run --out on a full file system: exit 2 ($status)" test $status -eq 2
  check "run --out on a full file system: says the disk is full" \
    grep -q "No space left on device" err
  check "run --out on a full file system: the old file unchanged" \
    test "$(cat small/report.json)" = "previous report"
  check "run --out on a full file system: no temporary left" \
    test -z "$(find small -name '.*.tmp-*')"
else
  echo "note: no tmpfs mount allowed here; the full regular-file case is covered by the full device"
fi
exit $((failures > 0))
