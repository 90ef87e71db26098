#!/usr/bin/env bash
# acclab apsp GRAPH with the mpi_* steps, alone and under mpirun on 1 to 4 ranks (grids 1x1,
# 2x1, 3x1, 2x2): --out, binary (MPI-IO) and CSV (streamed by rank 0), byte for byte the
# single-process files, under both semirings, on an uneven n (a 101-vertex DAG: blocks of 64, or
# 32 on 3 ranks, the last one short) and on polbooks; the summary, the --paths check and the
# --query path the same lines, the matrix digest among them (summed over the ranks' shares, never
# gathered: the same on every rank count and from --format json); a positive cycle refused on every rank count (exit 2, one line,
# nothing written); no step named runs an MPI step; a step that is not an MPI step, an
# unwritable --out and a share larger than the node's memory refused alike.
# usage: mpi_apsp_solver_test.sh ACCLAB_BINARY MPIEXEC TEST_DATA
set -u
acclab=$1
mpiexec=$2
data=$3
source "$(dirname "$0")/checks.sh"  # check, one_line_exit_2
source "$(dirname "$0")/mpi_checks.sh"  # launch
polbooks=$data/graphs/polbooks.mtx

# A DAG (no positive cycle for longest paths) of 101 vertices, edges forward only, weights in
# eighths so that sums are exact either way round.
python3 - "$dir/dag.txt" <<'PY'
import random, sys
random.seed(7)
n = 101
with open(sys.argv[1], "w") as f:
    for u in range(n):
        for _ in range(3):
            v = random.randrange(n)
            if v > u:
                f.write(f"{u} {v} {random.randint(1, 50) / 8}\n")
    f.write(f"{n - 1} {n - 1} 0\n")
PY

# The lines that must not depend on the ranks: the summary's figures, the digest, the paths and
# the query.
figures() { grep -E '^(reachable|matrix digest|paths:|query|test )' "$1"; }
digest_of() { sed -n 's/^matrix digest: \([0-9a-f]\{16\}\)$/\1/p' "$1"; }

# $1: ranks (0: without mpirun); the rest: the command's arguments after the graph.
solve() {
  local np=$1
  shift
  if [ "$np" -eq 0 ]; then "$acclab" apsp "$@"; else launch "$np" "$acclab" apsp "$@"; fi
}

# $1: name; $2: graph; the rest: options. The single-process files and lines, by multicore.
reference() {
  local name=$1 graph=$2
  shift 2
  "$acclab" apsp "$graph" --variant multicore "$@" --out "$dir/$name.bin" > "$dir/$name.out" &&
    "$acclab" apsp "$graph" --variant multicore "$@" --out "$dir/$name.csv" > /dev/null
}
reference dag-max "$dir/dag.txt" --paths --query 0 100
reference dag-min "$dir/dag.txt" --semiring min-plus --paths --query 3 97
reference polbooks-min "$polbooks" --semiring min-plus --query 1 105
check "the single-process references ran" test -s "$dir/polbooks-min.csv"
# Without it the comparisons below would pass on reports that carry no digest.
for name in dag-max dag-min polbooks-min; do
  check "$name: the reference reports a digest" test -n "$(digest_of "$dir/$name.out")"
done
check "the two semirings' results have different digests" \
  test "$(digest_of "$dir/dag-max.out")" != "$(digest_of "$dir/dag-min.out")"

# $1: ranks (0: alone); $2: variant; $3: reference name; $4: graph; the rest: options.
same_as_alone() {
  local np=$1 variant=$2 name=$3 graph=$4
  shift 4
  local what="$name, $variant on $np ranks"
  solve "$np" "$graph" --variant "$variant" "$@" --out "$dir/got.bin" > "$dir/got.out" 2> "$dir/err"
  local status=$?
  check "$what: exit 0 (exit $status: $(head -1 "$dir/err"))" test "$status" -eq 0
  check "$what: binary --out byte for byte" cmp -s "$dir/$name.bin" "$dir/got.bin"
  check "$what: the same figures, paths and query" \
    diff <(figures "$dir/$name.out") <(figures "$dir/got.out")
  solve "$np" "$graph" --variant "$variant" "$@" --out "$dir/got.csv" > /dev/null 2>&1
  check "$what: CSV --out byte for byte" cmp -s "$dir/$name.csv" "$dir/got.csv"
  rm -f "$dir/got.bin" "$dir/got.csv"
}

grids=(1x1 1x1 2x1 3x1 2x2)
for np in 0 1 2 3 4; do
  same_as_alone $np mpi_host dag-max "$dir/dag.txt" --paths --query 0 100
  same_as_alone $np mpi_host dag-min "$dir/dag.txt" --semiring min-plus --paths --query 3 97
  same_as_alone $np mpi_acc polbooks-min "$polbooks" --semiring min-plus --query 1 105
  check "$np ranks: the summary names the grid ${grids[np]}" \
    grep -q "process grid ${grids[np]}, blocks of" "$dir/got.out"
done
check "no temporary file left behind" test -z "$(ls -A "$dir" | grep '^\.')"

# --format json on 4 ranks: the digest the ranks' shares add up to, and the distribution.
launch 4 "$acclab" apsp "$dir/dag.txt" --variant mpi_acc --semiring min-plus --format json \
  > "$dir/got.json"
check "mpi_acc on 4 ranks, json: the single-process digest, the 2x2 grid" \
  python3 -c 'import json, sys
o = json.load(open(sys.argv[1]))
assert o["matrix_digest"] == sys.argv[2] and o["mpi"]["proc_grid"] == "2x2", o' \
  "$dir/got.json" "$(digest_of "$dir/dag-min.out")"

# A one-vertex graph runs as two vertices: the digest is of its 1 x 1 matrix, as without MPI.
echo "0 0 1" > "$dir/one.txt"
"$acclab" apsp "$dir/one.txt" --semiring min-plus --variant multicore > "$dir/one.out"
launch 1 "$acclab" apsp "$dir/one.txt" --semiring min-plus --variant mpi_host > "$dir/got.out"
check "one vertex on 1 rank: the single-process digest" \
  test "$(digest_of "$dir/got.out")" = "$(digest_of "$dir/one.out")" -a -n "$(digest_of "$dir/one.out")"

# The seed's graph: its 20 test lines read off the spread matrix.
"$acclab" apsp --seed-graph 60 --semiring min-plus > "$dir/seed.out"
launch 3 "$acclab" apsp --seed-graph 60 --semiring min-plus --variant mpi_host > "$dir/got.out"
check "seed graph on 3 ranks: its test lines" diff <(figures "$dir/seed.out") <(figures "$dir/got.out")

# A positive cycle (every undirected graph has one for longest paths): refused on every rank
# count, nothing written.
for np in 0 1 2 3 4; do
  one_line_exit_2 "a positive cycle on $np ranks" "vertex 1 lies on a positive cycle" \
    solve $np "$polbooks" --variant mpi_host --out "$dir/cycle.bin"
  check "a positive cycle on $np ranks: nothing written" \
    test "$(ls -A "$dir" | grep -c cycle)" -eq 0
done

one_line_exit_2 "a step that is not an MPI step on 2 ranks" "multicore is not an MPI step" \
  launch 2 "$acclab" apsp "$polbooks" --variant multicore
# None named: the default under mpirun is an MPI step (mpi_host without a GPU).
launch 2 "$acclab" apsp --seed-graph 60 --semiring min-plus > "$dir/got.out" 2> "$dir/err"
status=$?
check "no step named on 2 ranks: exit 0 (exit $status: $(cat "$dir/err"))" test "$status" -eq 0
check "no step named on 2 ranks: an MPI step ran" grep -q "shortest paths by mpi_" "$dir/got.out"
check "no step named on 2 ranks: the seed's test lines" \
  diff <(figures "$dir/seed.out") <(figures "$dir/got.out")
one_line_exit_2 "an --out folder that does not exist, on 3 ranks" "no directory" \
  launch 3 "$acclab" apsp "$polbooks" --variant mpi_host --out "$dir/none/d.bin"

# n = 46340 (an edge list's largest id): each rank's share with successors is 24 GiB over the
# ranks of a node (24.1 GiB); refused before anything is allocated where less is available.
echo "46339 0 1" > "$dir/wide.txt"
available_kib=$(awk '/^MemAvailable/ {print $2}' /proc/meminfo)
if [ "$available_kib" -lt $((47 * 1024 * 1024 / 2)) ]; then
  one_line_exit_2 "a share past the node's memory, on 2 ranks" "the 2 ranks of its node" \
    timeout 120 "$mpiexec" --allow-run-as-root --oversubscribe -q -np 2 "$acclab" apsp \
    "$dir/wide.txt" --variant mpi_host --paths
  check "the refusal gives the figures" grep -q "GiB of host memory.*GiB available" "$dir/err"
else
  echo "skipped: the memory refusal (this host has 23.5 GiB or more available)"
fi
# n = 100000, past 2^31 elements: an MPI step takes it (it indexes in 64 bits) as far as the
# memory check, which refuses each rank's 37 GiB share (no successors) on any node with less.
echo "99999 0 1" > "$dir/past.txt"
if [ "$available_kib" -lt $((2 * 38 * 1024 * 1024)) ]; then
  one_line_exit_2 "past 2^31 elements, a share past the node's memory" "the 2 ranks of its node" \
    timeout 120 "$mpiexec" --allow-run-as-root --oversubscribe -q -np 2 "$acclab" apsp \
    "$dir/past.txt" --variant mpi_host
  check "the refusal is memory's, not the indices'" grep -q "GiB of host memory.*GiB available" \
    "$dir/err"
else
  echo "skipped: the memory refusal past 2^31 elements (this host has 76 GiB or more available)"
fi
exit $((failures > 0))
