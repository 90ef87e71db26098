# Sourced by the MPI shell tests after checks.sh, with $acclab, $mpiexec and $dir set.
# `launch NP COMMAND...` starts COMMAND on NP ranks. Root needs --allow-run-as-root (CI and the
# GPU machine run as root); -q drops Open MPI's banner about processes that exited with a
# non-zero status, so that acclab's line is the only one.
# In containers without ptrace rights Open MPI's shared-memory single copy (CMA) fails with
# "Read -1, expected ..." on stderr; the copy-in/copy-out path works everywhere.
export OMPI_MCA_btl_vader_single_copy_mechanism=none
launch() { local np=$1; shift; "$mpiexec" --allow-run-as-root --oversubscribe -q -np "$np" "$@"; }

# check_stencil_report REPORT RANKS GRID DIMS DIFF_KEY [KEY=VALUE...]: a stencil's mpi_* results
# in the JSON REPORT, run on RANKS ranks over a DIMS-dimensional process grid, GRID ("" for any
# that fits): mpi_cuda
# unavailable (no GPU in CI), the other three verified bit for bit (points_differing_from_serial
# and output DIFF_KEY both 0, every KEY equal to VALUE), their mpi section complete and
# consistent, halos through host memory.
check_stencil_report() {
  python3 - "$@" <<'PY'
import json, sys
path, ranks, grid, dims, diff_key = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), sys.argv[5]
expected = dict(arg.split("=", 1) for arg in sys.argv[6:])
results = json.load(open(path))["results"]
# mpi_cuda, where built, is unavailable without a GPU (CI); the rest run on the host.
cuda = [r for r in results if r["variant"] == "mpi_cuda"]
assert all(r["status"] == "unavailable" for r in cuda), cuda
results = [r for r in results if r["variant"] != "mpi_cuda"]
names = sorted(r["variant"] for r in results)
assert names == ["mpi_acc_overlap", "mpi_acc_staged", "mpi_openmp"], names
for r in results:
    assert r["status"] == "verified", (r["variant"], r.get("error"))
    o = r["outputs"]
    for key, value in expected.items():
        assert str(o[key]) == value, (r["variant"], key, o[key])
    assert o["points_differing_from_serial"] == 0, (r["variant"], o)
    assert o[diff_key] == 0, (r["variant"], o)
    o = r["mpi"]
    assert o["ranks"] == ranks, (r["variant"], o["ranks"])
    sides = [int(n) for n in o["proc_grid"].split("x")]
    assert len(sides) == dims, o["proc_grid"]
    product = 1
    for n in sides:
        product *= n
    assert product == ranks and (not grid or o["proc_grid"] == grid), o["proc_grid"]
    assert o["halo_path"] == "host", o["halo_path"]
    assert (o["halo_bytes_per_sweep"] > 0) == (ranks > 1), o["halo_bytes_per_sweep"]
    s = o["rank_seconds"]
    assert 0 < s["min"] <= s["median"] <= s["max"], s
    assert o["mpi_library"], o
PY
}

# check_on_1_to_4_ranks WORKLOAD WHAT ARGS...: WORKLOAD's mpi_* steps with ARGS on 1 to 4 ranks,
# each report checked by the test's check_report as bit for bit the serial WHAT (grid, field);
# then that rank 0 alone wrote --out.
check_on_1_to_4_ranks() {
  local workload=$1 what=$2 np
  shift 2
  for np in 1 2 3 4; do
    launch $np "$acclab" run "$workload" --variant 'mpi_*' "$@" --format json \
      --out "$dir/np$np.json" > /dev/null 2> "$dir/err"
    check "$np ranks: exit 0" test $? -eq 0
    check "$np ranks: bit for bit the serial $what, ranks and process grid reported" \
      check_report "$dir/np$np.json" $np ""
  done
  check "rank 0 alone wrote --out (no other file, no temporary left)" \
    test "$(ls "$dir" | grep -c json)" -eq 4
}

# check_on_3_ranks_as GRID WORKLOAD WHAT ARGS...: the mpi_* steps with ARGS on 3 ranks forced into
# the process grid GRID, checked by check_report as bit for bit the serial WHAT.
check_on_3_ranks_as() {
  local grid=$1 workload=$2 what=$3
  shift 3
  launch 3 "$acclab" run "$workload" --variant 'mpi_*' "$@" --set proc_grid=$grid \
    --format json --out "$dir/g$grid.json" > /dev/null 2>&1
  check "proc_grid=$grid: exit 0" test $? -eq 0
  check "proc_grid=$grid: bit for bit the serial $what" check_report "$dir/g$grid.json" 3 $grid
}
