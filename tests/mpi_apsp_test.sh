#!/usr/bin/env bash
# apsp's mpi_* steps under mpirun, as CI runs them (no GPU: OpenACC on the host, mpi_cuda, where
# built, reported unavailable on every rank count without failing the run): every step on
# 1 to 4 ranks (grids 1x1, 2x1, 3x1, 2x2, and forced 1x3 and 1x4) gives the serial loop's matrix
# bit for bit (its digest too) and, with paths, its successors, under both semirings, with and
# without lookahead; n = 97 with block = 16 leaves a last block of one row and process rows and
# columns with unequal shares. Rank 0 alone writes --out, and bad input is one line and exit 2
# from every rank.
# usage: mpi_apsp_test.sh ACCLAB_BINARY MPIEXEC
set -u
acclab=$1
mpiexec=$2
source "$(dirname "$0")/checks.sh"  # check, one_line_exit_2
source "$(dirname "$0")/mpi_checks.sh"  # launch
small=(--preset small --set n=97 --set block=16 --reps 1)

# Whether this build has mpi_cuda (CUDA, MPI and NCCL found): then every run of 'mpi_*' must
# report it, unavailable (no GPU here).
has_cuda_step=$("$acclab" list --format json | python3 -c '
import json, sys
names = [v["variant"] for v in json.load(sys.stdin)["variants"] if v["workload"] == "apsp"]
print(int("mpi_cuda" in names))')

# The serial loop's digests, without MPI.
for semiring in max-plus min-plus; do
  "$acclab" run apsp --variant serial --preset small --set n=97 --reps 1 --set semiring=$semiring \
    --format json \
    > "$dir/serial-$semiring.json"
done

# $1: the JSON report; $2: ranks; $3: the process grid expected; $4: the semiring; $5: paths;
# $6: lookahead expected (true/false).
check_report() {
  python3 - "$dir" "$@" <<'PY'
import json, sys
folder, path, ranks, grid, semiring, paths, ahead, has_cuda = sys.argv[1:]
ranks, paths, ahead = int(ranks), paths == "1", ahead == "true"
serial = json.load(open(f"{folder}/serial-{semiring}.json"))["results"][0]["outputs"]
results = json.load(open(path))["results"]
# mpi_cuda, where built, is there and unavailable without a GPU; the rest run on the host.
cuda = [r for r in results if r["variant"] == "mpi_cuda"]
assert len(cuda) == int(has_cuda), (len(cuda), has_cuda)
for r in cuda:
    assert r["status"] == "unavailable", (r["status"], r.get("error"))
    assert r["backend"] == "cuda" and r["note"], r
results = [r for r in results if r["variant"] != "mpi_cuda"]
names = sorted(r["variant"] for r in results)
assert names == ["mpi_acc", "mpi_host"], names
for r in results:
    assert r["status"] == "verified", (r["variant"], r.get("error"))
    assert r["params"]["semiring"] == semiring, r["params"]
    o = r["outputs"]
    assert o["tolerance"] == 0 and o["difference"] == 0, (r["variant"], o)
    assert o["matrix_digest"] == serial["matrix_digest"], (r["variant"], o["matrix_digest"])
    assert "bitwise equal to the serial loop" in r["verification"], r["verification"]
    if paths:
        assert "successors equal to the serial loop's" in r["verification"], r["verification"]
        assert o["paths_checked"] > 0, o
    m = r["mpi"]
    assert m["ranks"] == ranks, (r["variant"], m["ranks"])
    assert m["proc_grid"] == grid, (r["variant"], m["proc_grid"])
    assert m["block"] == 16 and m["rounds"] == 7, m
    assert m["lookahead"] == ahead, m
    assert m["panel_path"] == "host", m["panel_path"]
    # Every rank but the pivots' receives a panel each round (one rank: nothing to receive).
    assert (m["broadcast_bytes_per_round"] > 0) == (ranks > 1), m
    assert 0 <= m["broadcast_share"] <= 1, m
    # The rounds' broadcast times add up to the run's; the slowest round is at least a round's
    # average (the slowest rank's) and at most the whole.
    per_round, slowest = m["broadcast_s_per_round"], m["broadcast_s_slowest_round"]
    assert abs(per_round * m["rounds"] - m["broadcast_s"]) <= 1e-9 * (1 + m["broadcast_s"]), m
    assert per_round * (1 - 1e-9) <= slowest <= m["broadcast_s"] * (1 + 1e-9), m
    assert (slowest > 0) == (ranks > 1), m
    # One rank broadcasts nothing and waits for no panel (its panels stay where B and C left
    # them: on a GPU, panel_path "none (one rank)" for mpi_acc; the host arrays here).
    if ranks == 1:
        assert m["broadcast_s"] == 0 and m["broadcast_share"] == 0, m
    s = m["rank_seconds"]
    assert 0 < s["min"] <= s["median"] <= s["max"], s
    assert m["mpi_library"], m
PY
}

# $1: ranks; $2: the process grid expected; $3: lookahead expected; the rest: more options.
run_and_check() {
  local np=$1 grid=$2 ahead=$3
  shift 3
  local semiring=max-plus paths=0 a
  for a in "$@"; do
    case $a in
      semiring=*) semiring=${a#semiring=} ;;
      paths=*) paths=${a#paths=} ;;
    esac
  done
  local out="$dir/np$np-$grid-$semiring-$paths-$ahead.json"
  local sets=()
  for a in "$@"; do sets+=(--set "$a"); done
  launch "$np" "$acclab" run apsp --variant 'mpi_*' "${small[@]}" "${sets[@]}" --format json \
    --out "$out" > /dev/null 2> "$dir/err"
  local status=$?
  check "$np ranks ($grid, $semiring, paths=$paths, lookahead $ahead): exit 0 ($status)" \
    test $status -eq 0
  check "$np ranks ($grid, $semiring, paths=$paths, lookahead $ahead): bitwise the serial loop" \
    check_report "$out" "$np" "$grid" "$semiring" "$paths" "$ahead" "$has_cuda_step"
}

grids=(1x1 2x1 3x1 2x2)
for np in 1 2 3 4; do
  grid=${grids[np - 1]}
  ahead=$([ $np -gt 1 ] && echo true || echo false)
  run_and_check $np $grid $ahead semiring=max-plus paths=1
  run_and_check $np $grid $ahead semiring=min-plus
done
check "rank 0 alone wrote --out (no other file, no temporary left)" \
  test "$(ls "$dir" | grep -c '^np')" -eq 8
# Process columns instead of rows, lookahead forced either way.
run_and_check 3 1x3 false proc_grid=1x3 lookahead=off semiring=min-plus paths=1
run_and_check 4 1x4 true proc_grid=1x4 semiring=max-plus paths=1
run_and_check 1 1x1 true lookahead=on semiring=max-plus paths=1
run_and_check 4 2x2 false lookahead=off semiring=max-plus

# The table names the process grid, the panel path and the broadcasts' share.
launch 2 "$acclab" run apsp --variant 'mpi_*' "${small[@]}" --wide > "$dir/table" 2> "$dir/err"
check "the table, 2 ranks: exit 0" test $? -eq 0
check "the table, 2 ranks: grid, panel path and broadcasts named" \
  test "$(grep -c 'verified.*2 ranks (2x1), panels host, broadcasts' "$dir/table")" -eq 2
check "the table, 2 ranks: mpi_cuda unavailable where built" \
  test "$(grep -c 'mpi_cuda.*unavailable' "$dir/table")" -eq "$has_cuda_step"

# Without mpirun the steps run as one rank.
"$acclab" run apsp --variant 'mpi_*' "${small[@]}" --set paths=1 --format json \
  --out "$dir/alone.json" > /dev/null 2>&1
check "without mpirun: exit 0" test $? -eq 0
check "without mpirun: one rank, bitwise the serial loop" \
  check_report "$dir/alone.json" 1 1x1 max-plus 1 false "$has_cuda_step"

# Bad input: one line from rank 0, exit 2, from every rank.
one_line_exit_2 "a proc_grid of 4 ranks on 3" "proc_grid=2x2" \
  launch 3 "$acclab" run apsp --variant 'mpi_*' "${small[@]}" --set proc_grid=2x2
one_line_exit_2 "a proc_grid that is no PrxPc" "proc_grid=2by1" \
  launch 2 "$acclab" run apsp --variant mpi_host "${small[@]}" --set proc_grid=2by1
one_line_exit_2 "more ranks along a side than blocks" "more ranks along a side" \
  launch 4 "$acclab" run apsp --variant mpi_host --set n=97 --set block=64 --set proc_grid=4x1
one_line_exit_2 "a step that is not an MPI step on 2 ranks" "serial is not an MPI step" \
  launch 2 "$acclab" run apsp --variant serial --preset small
check "no report written by a refused run" test ! -e "$dir/out.json"
exit $((failures > 0))
