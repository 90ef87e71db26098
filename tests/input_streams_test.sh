#!/usr/bin/env bash
# Inputs are read once (src/io/line_reader.hpp, ReplayedInput), so that a pipe, a FIFO or a
# process substitution gives the answer the file gives: acclab apsp on the three graph formats
# (Matrix Market, DIMACS, edge list; the format detection reads the start of the stream before
# the reader does), acclab iccg's matrix and its --rhs (plain list, Matrix Market array and
# coordinate). The same inputs gzip'd, from files and pipes alike (told by their first bytes).
# usage: input_streams_test.sh ACCLAB_BINARY DATA_DIR
set -u
acclab=$(realpath "$1")
data=$(realpath "$2")
source "$(dirname "$0")/checks.sh"
cd "$dir" || exit 1

# Weighted graphs in each format, long enough that a reader opening the stream a second time
# would lose edges (the pipe's first 64 KiB went to the format check): the polbooks graph's
# edges with weights, repeated over copies of the graph joined into one.
python3 - "$data/graphs/polbooks.mtx" <<'PY'
import sys
edges = []
for line in open(sys.argv[1]):
    if line.startswith('%'):
        continue
    words = line.split()
    if len(words) == 3 and not edges and not hasattr(sys, 'size_seen'):
        sys.size_seen = int(words[0])
        continue
    i, j = int(words[0]), int(words[1])
    edges.append((i - 1, j - 1))
n0 = sys.size_seen
copies = 12
n = n0 * copies
arcs = []
for c in range(copies):
    for k, (i, j) in enumerate(edges):
        w = 1 + (7 * k + 3 * c) % 11
        arcs.append((c * n0 + i, c * n0 + j, w))
        arcs.append((c * n0 + j, c * n0 + i, w))
    if c + 1 < copies:  # a bridge to the next copy
        arcs.append((c * n0, (c + 1) * n0, 5))
with open('g.txt', 'w') as f:
    f.write('# edge list: FROM TO WEIGHT, 0-based\n')
    f.writelines(f'{a} {b} {w}\n' for a, b, w in arcs)
with open('g.gr', 'w') as f:
    f.write(f'c DIMACS\np sp {n} {len(arcs)}\n')
    f.writelines(f'a {a + 1} {b + 1} {w}\n' for a, b, w in arcs)
with open('g.mtx', 'w') as f:
    f.write(f'%%MatrixMarket matrix coordinate real general\n{n} {n} {len(arcs)}\n')
    f.writelines(f'{a + 1} {b + 1} {w}\n' for a, b, w in arcs)
PY
check "the graphs are larger than a pipe's buffer" test "$(stat -c %s g.txt)" -gt 100000

digest() { grep '^matrix digest:' "$1" | awk '{print $3}'; }
for graph in g.txt g.gr g.mtx; do
  "$acclab" apsp "$graph" --semiring min-plus > file.out 2> err
  check "apsp $graph from the file: exit 0" test $? -eq 0
  want=$(digest file.out)
  check "apsp $graph: a digest" test -n "$want"

  cat "$graph" | "$acclab" apsp /dev/stdin --semiring min-plus > pipe.out 2> err
  status=$?
  check "apsp $graph through a pipe (/dev/stdin): exit 0 ($status: $(head -c 200 err))" \
    test $status -eq 0
  check "apsp $graph through a pipe: the file's digest" test "$(digest pipe.out)" = "$want"

  "$acclab" apsp <(cat "$graph") --semiring min-plus > subst.out 2> err
  status=$?
  check "apsp $graph by process substitution: exit 0 ($status: $(head -c 200 err))" \
    test $status -eq 0
  check "apsp $graph by process substitution: the file's digest" \
    test "$(digest subst.out)" = "$want"

  rm -f fifo
  mkfifo fifo
  # A reader that fails before opening the FIFO must not leave the writer holding the test.
  (timeout 300 cat "$graph" > fifo 2> /dev/null < /dev/null &)
  timeout 300 "$acclab" apsp fifo --semiring min-plus > fifo.out 2> err
  status=$?
  check "apsp $graph from a FIFO: exit 0 ($status)" test $status -eq 0
  check "apsp $graph from a FIFO: the file's digest" test "$(digest fifo.out)" = "$want"
done

# Past ACCLAB_INPUT_MEMORY_BYTES (64 MiB by default) a piped input's bytes go to an unlinked file
# in TMPDIR instead of memory: the same answer from the spool, at a limit of 0 (spooled from the
# first byte) and of 4096 (moved there part way), and nothing left behind in TMPDIR.
mkdir spool
"$acclab" apsp g.mtx --semiring min-plus > mtx_file.out 2> err
for limit in 0 4096; do
  cat g.mtx | ACCLAB_INPUT_MEMORY_BYTES=$limit TMPDIR=$dir/spool "$acclab" apsp /dev/stdin \
    --semiring min-plus > spool.out 2> err
  status=$?
  check "apsp g.mtx through a pipe, spooled past $limit bytes: exit 0 ($status: $(head -c 200 err))" \
    test $status -eq 0
  check "apsp g.mtx spooled past $limit bytes: the file's digest" \
    test "$(digest spool.out)" = "$(digest mtx_file.out)"
done
check "the spool files are gone with the process" test -z "$(ls -A spool)"
# A spool that fills its file system: one line naming the input and the folder, exit 2, and no
# output file (as root, a 16 KiB tmpfs; elsewhere the case is left out with a note).
if mount_small_fs 16k; then
  cat g.mtx | ACCLAB_INPUT_MEMORY_BYTES=4096 TMPDIR=$dir/small "$acclab" apsp /dev/stdin \
    --semiring min-plus --out full.out > /dev/null 2> err
  status=$?
  umount small
  check "a full spool: exit 2 ($status)" test $status -eq 2
  check "a full spool: one line" test "$(wc -l < err)" -eq 1
  check "a full spool: it names the folder and the cause" \
    grep -q "cannot keep the input read from it in $dir/small (No space left on device)" err
  check "a full spool: no output file" test ! -e full.out
else
  echo "note: no tmpfs mount allowed here; the full spool case is left out"
fi

# iccg: the matrix and the right-hand side, each in every layout, from files and from streams:
# the solution files must hold the same values (their comment line names the input path).
matrix=$data/matrices/494_bus.mtx
python3 - <<'PY'
n = 494
b = [((7 * i) % 13) - 6.0 for i in range(n)]
with open('b.txt', 'w') as f:
    f.writelines(f'{x!r}\n' for x in b)
with open('b_array.mtx', 'w') as f:
    f.write(f'%%MatrixMarket matrix array real general\n{n} 1\n')
    f.writelines(f'{x!r}\n' for x in b)
nonzero = [(i, x) for i, x in enumerate(b) if x != 0]
with open('b_coord.mtx', 'w') as f:
    f.write(f'%%MatrixMarket matrix coordinate real general\n{n} 1 {len(nonzero)}\n')
    f.writelines(f'{i + 1} 1 {x!r}\n' for i, x in nonzero)
PY
values() { grep -v '^%' "$1"; }
same_solution() { cmp -s <(values x_file.mtx) <(values x_stream.mtx); }
"$acclab" iccg "$matrix" --rhs b.txt --out x_file.mtx > iccg.out 2> err
check "iccg from files: exit 0 ($(head -c 200 err))" test -s x_file.mtx
check "iccg from files: a size line and 494 values" test "$(values x_file.mtx | wc -l)" -eq 495
for rhs in b.txt b_array.mtx b_coord.mtx; do
  rm -f x_stream.mtx
  "$acclab" iccg <(cat "$matrix") --rhs <(cat "$rhs") --out x_stream.mtx > iccg.out 2> err
  status=$?
  check "iccg <(matrix) --rhs <($rhs): exit 0 ($status: $(head -c 200 err))" test $status -eq 0
  check "iccg <(matrix) --rhs <($rhs): the files' solution" same_solution
done
rm -f x_stream.mtx
cat "$matrix" | "$acclab" iccg /dev/stdin --rhs b.txt --out x_stream.mtx > iccg.out 2> err
status=$?
check "iccg matrix through a pipe: exit 0 ($status: $(head -c 200 err))" test $status -eq 0
check "iccg matrix through a pipe: the file's solution" same_solution
rm -f x_stream.mtx
cat "$matrix" | ACCLAB_INPUT_MEMORY_BYTES=1000 TMPDIR=$dir/spool "$acclab" iccg /dev/stdin \
  --rhs <(cat b_coord.mtx) --out x_stream.mtx > iccg.out 2> err
status=$?
check "iccg matrix and --rhs through pipes, spooled: exit 0 ($status: $(head -c 200 err))" \
  test $status -eq 0
check "iccg matrix and --rhs through pipes, spooled: the files' solution" same_solution

# ---- gzip'd inputs: the plain file's answer, told by the first bytes and not the name --------------
for graph in g.txt g.gr g.mtx; do
  "$acclab" apsp "$graph" --semiring min-plus > file.out 2> err
  want=$(digest file.out)
  gzip -c "$graph" > "$graph.gz"
  "$acclab" apsp "$graph.gz" --semiring min-plus > gz.out 2> err
  status=$?
  check "apsp $graph.gz: exit 0 ($status: $(head -c 200 err))" test $status -eq 0
  check "apsp $graph.gz: the plain file's digest" test "$(digest gz.out)" = "$want"
  gzip -c "$graph" | "$acclab" apsp /dev/stdin --semiring min-plus > gz.out 2> err
  status=$?
  check "apsp: $graph gzip'd through a pipe: exit 0 ($status: $(head -c 200 err))" \
    test $status -eq 0
  check "apsp: $graph gzip'd through a pipe: the plain file's digest" \
    test "$(digest gz.out)" = "$want"
done
# A name that says nothing of gzip, and two gzip members one after the other (as `cat a.gz b.gz`
# makes; gzip -d reads them as one text).
"$acclab" apsp g.txt --semiring min-plus > file.out 2> err
{ head -n 5000 g.txt | gzip -c; tail -n +5001 g.txt | gzip -c; } > two_members
"$acclab" apsp two_members --semiring min-plus > gz.out 2> err
status=$?
check "apsp: two gzip members in a file named without .gz: exit 0 ($status: $(head -c 200 err))" \
  test $status -eq 0
check "apsp: two gzip members: the plain file's digest" \
  test "$(digest gz.out)" = "$(digest file.out)"
gzip -c "$matrix" > m.mtx.gz
gzip -c b_coord.mtx > b.mtx.gz
rm -f x_stream.mtx
"$acclab" iccg m.mtx.gz --rhs b.mtx.gz --out x_stream.mtx > iccg.out 2> err
status=$?
check "iccg M.mtx.gz --rhs b.mtx.gz: exit 0 ($status: $(head -c 200 err))" test $status -eq 0
check "iccg M.mtx.gz --rhs b.mtx.gz: the plain files' solution" same_solution
rm -f x_stream.mtx
gzip -c "$matrix" | "$acclab" iccg /dev/stdin --rhs <(gzip -c b.txt) --out x_stream.mtx \
  > iccg.out 2> err
status=$?
check "iccg gzip'd matrix and --rhs through pipes: exit 0 ($status: $(head -c 200 err))" \
  test $status -eq 0
check "iccg gzip'd matrix and --rhs through pipes: the files' solution" same_solution
# A gzip stream cut short or corrupt: one line naming the input, exit 2, no output.
gzip -c g.txt | head -c 20000 | "$acclab" apsp /dev/stdin --out cut.out > /dev/null 2> err
status=$?
check "a gzip'd graph cut short through a pipe: exit 2 ($status)" test $status -eq 2
check "a gzip'd graph cut short: one line" test "$(wc -l < err)" -eq 1
check "a gzip'd graph cut short: it names the input and says so ($(cat err))" \
  grep -q '^acclab: /dev/stdin: truncated gzip data' err
check "a gzip'd graph cut short: no output file" test ! -e cut.out
gzip -c "$matrix" | python3 -c 'import sys; d = bytearray(sys.stdin.buffer.read())
d[300:340] = bytes(40); sys.stdout.buffer.write(d)' > bad.mtx.gz
"$acclab" iccg bad.mtx.gz > /dev/null 2> err
status=$?
check "a corrupt gzip'd matrix: exit 2, one line ($status, $(cat err))" \
  test $status -eq 2 -a "$(wc -l < err)" -eq 1
check "a corrupt gzip'd matrix: it names the file" grep -q '^acclab: bad.mtx.gz: corrupt gzip data' err
exit $((failures > 0))
