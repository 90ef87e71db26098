#!/usr/bin/env bash
# scripts/gpu-check.py as a dry run where there is no GPU (no sanitizers, no seed runs, one
# workload): its records, its verdict and its exit status; then with a stand-in for acclab's
# runs, the environment each process gets and the seed runs' verdicts.
# usage: gpu_check_test.sh ACCLAB_BINARY GPU_CHECK_SCRIPT
set -u
acclab=$1
check=$2
source "$(dirname "$0")/checks.sh"
dry=(--acclab "$acclab" --workloads vector --no-sanitizers --no-seed --jobs 2)

python3 "$check" "${dry[@]}" --out "$dir/good" > "$dir/good.txt" 2>&1
check "exit 0 when every variant verifies" test $? -eq 0
python3 - "$dir/good/LATEST.json" "$acclab" <<'PY'
import json, subprocess, sys
doc = json.load(open(sys.argv[1]))
listed = json.loads(subprocess.run([sys.argv[2], "list", "--format", "json"],
                                   capture_output=True, text=True).stdout)["variants"]
vector = {v["variant"]: v for v in listed if v["workload"] == "vector"}
problems = []
if doc["schema"] != "acclab.gpu-check/1": problems.append("schema")
if doc["complete"]: problems.append("a dry run marked complete")
if not doc["ok"] or doc["problems"]: problems.append(f"problems {doc['problems']}")
names = [r["variant"] for r in doc["variants"]]
if sorted(names) != sorted(vector): problems.append(f"variants {names} != {sorted(vector)}")
for r in doc["variants"]:
    expected = "verified" if vector[r["variant"]]["available"] else "unavailable"
    if r["small"]["status"] != expected:
        problems.append(f"{r['variant']}: {r['small']['status']}, expected {expected}")
    if expected == "verified" and not r["small"].get("command", "").count("--variant"):
        problems.append(f"{r['variant']}: no command recorded")
if not isinstance(doc.get("commit"), str): problems.append("no commit")
print("\n".join(problems) or "records ok")
sys.exit(1 if problems else 0)
PY
check "one record per vector variant, each verified or unavailable as acclab list says" test $? -eq 0

# The solvers on users' files: acclab apsp FILE with every single-process apsp variant that runs
# here, each verified (its paths re-summed where it keeps them), their digests one.
python3 "$check" --acclab "$acclab" --workloads apsp --no-sanitizers --no-seed --jobs 2 \
  --out "$dir/apsp" > "$dir/apsp.txt" 2>&1
check "apsp dry run: exit 0" test $? -eq 0
check "runs.tgz leaves out the references the runs shared" \
  bash -c "tar tzf '$dir/apsp/runs.tgz' | grep -q '^runs/apsp' &&
           ! tar tzf '$dir/apsp/runs.tgz' | grep -q '^runs/references'"
python3 - "$dir/apsp/LATEST.json" "$acclab" <<'PY'
import json, subprocess, sys
doc = json.load(open(sys.argv[1]))
listed = json.loads(subprocess.run([sys.argv[2], "list", "--format", "json"],
                                   capture_output=True, text=True).stdout)["variants"]
expected = sorted(v["variant"] for v in listed
                  if v["workload"] == "apsp" and v["available"] and not v["distributed"])
solvers = doc["solvers"]
problems = []
if sorted(s["variant"] for s in solvers) != expected:
    problems.append(f"solver runs {[s['variant'] for s in solvers]} != {expected}")
for s in solvers:
    r = s["file"]
    if s["command"] != "apsp" or r["status"] != "verified" or r["exit"] != 0:
        problems.append(f"{s}")
    if s["variant"] == "serial" and r["paths_checked"] == 0:
        problems.append("serial keeps its successors: its paths must be checked")
if len({s["file"]["matrix_digest"] for s in solvers}) != 1:
    problems.append("digests differ")
# Each variant run four times (--solver-repeats' default), every run verified, one digest.
for s in solvers:
    repeats = s.get("repeats", [])
    if len(repeats) != 3:
        problems.append(f"{s['variant']}: {len(repeats)} repeats, expected 3")
    for r in repeats:
        if r["status"] != "verified" or r["matrix_digest"] != s["file"]["matrix_digest"]:
            problems.append(f"{s['variant']} repeat: {r}")
if doc["summary"]["solver_repeats"] != {"verified": 3 * len(expected)}:
    problems.append(f"summary {doc['summary']['solver_repeats']}")
if doc["summary"]["solvers"] != {"verified": len(expected)}:
    problems.append(f"summary {doc['summary']['solvers']}")
print("\n".join(problems) or "solver records ok")
sys.exit(1 if problems else 0)
PY
check "one verified acclab apsp FILE run per single-process apsp variant" test $? -eq 0

# A variant whose answer changes from run to run is a problem, though each run alone passes: a
# stand-in binary reports another digest on its second run of serial.
cat > "$dir/flaky" <<SH
#!/usr/bin/env bash
if [[ \$1 == apsp && " \$* " == *" --variant serial "* ]]; then
  # The runs go in parallel: one at a time through the counter.
  n=\$(flock "$dir/count" bash -c \
    'n=\$(( \$(cat "\$0" 2>/dev/null || echo 0) + 1 )); echo \$n > "\$0"; echo \$n' "$dir/count")
  if (( n == 2 )); then
    "$acclab" "\$@" | sed 's/"matrix_digest": "[0-9a-f]*"/"matrix_digest": "0000000000000000"/'
    exit \${PIPESTATUS[0]}
  fi
fi
exec "$acclab" "\$@"
SH
chmod +x "$dir/flaky"
python3 "$check" --acclab "$dir/flaky" --workloads apsp --no-sanitizers --no-seed --jobs 2 \
  --out "$dir/flaky-out" > "$dir/flaky.txt" 2>&1
check "a digest that changes between runs of one variant: exit 1" test $? -eq 1
check "the variant and its digests are named" \
  grep -q "PROBLEM acclab apsp FILE --variant serial: 4 runs gave.*0000000000000000" "$dir/flaky.txt"

# Which uncommitted paths of a build make a complete check fail: those in what the binary is
# built from (the bundle's gated trees), not an untracked note elsewhere.
python3 - "$check" <<'PY'
import importlib.util, sys
spec = importlib.util.spec_from_file_location("gpu_check", sys.argv[1])
gpu_check = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gpu_check)
trees = {"workloads": "t1", "src": "t2", "apps": "t3", "cmake": "t4", "CMakeLists.txt": "t5"}
cases = [
    ({"dirty": False, "changed": []}, trees, []),
    ({"dirty": True, "changed": ["bench/results/x/", "docs/a.md"]}, trees, []),
    ({"dirty": True, "changed": ["bench/x.json", "src/core/a.hpp"]}, trees, ["src/core/a.hpp"]),
    ({"dirty": True, "changed": ["cmake/f.cmake", "CMakeLists.txt"]}, trees,
     ["cmake/f.cmake", "CMakeLists.txt"]),
    ({"dirty": True, "changed": ["workloads/new/"]}, None, ["workloads/new/"]),
    ({"dirty": True, "changed": []}, trees, ["(the build names no changed path)"]),
]
wrong = [(build, got, want) for build, gated, want in cases
         if (got := gpu_check.gated_changes(build, gated)) != want]
print("\n".join(map(str, wrong)) or "gated changes ok")
sys.exit(1 if wrong else 0)
PY
check "uncommitted paths count only where the binary is built from" test $? -eq 0

python3 "$check" "${dry[@]}" --out "$dir/bad" --extra=--corrupt-result > "$dir/bad.txt" 2>&1
check "exit 1 when a result fails verification" test $? -eq 1
check "the failed variant is named" grep -q "PROBLEM vector/original small: exited failed" "$dir/bad.txt"
check "the verdict is recorded" python3 -c "import json,sys; sys.exit(json.load(open('$dir/bad/LATEST.json'))['ok'])"

# A run past --timeout is stopped so that acclab can remove its --out temporary: a SIGKILL
# left a hidden temporary in runs.tgz for every timed-out run.
python3 "$check" "${dry[@]}" --out "$dir/slow" --timeout 2 --extra=--set=nt=100000 \
  > "$dir/slow.txt" 2>&1
check "exit 1 when runs time out" test $? -eq 1
check "the timed-out variant is named" grep -q "PROBLEM vector/original small: timeout no report" \
  "$dir/slow.txt"
check "no temporary left by a timed-out run" \
  bash -c "! tar tzf '$dir/slow/runs.tgz' | grep -q '\.tmp-'"

# Each job's share of the machine, and the seed runs' verdicts, with a stand-in for acclab's
# runs (list and info are acclab's own): it records the OpenMP environment each process was
# given, hangs on the seed preset for the variants in $HANG, and reports every other run
# verified at once. jacobi2d has GPU steps (seed runs) and distributed ones (mpirun ranks).
cat > "$dir/standin" <<SH
#!/usr/bin/env bash
[[ \$1 == run ]] || exec "$acclab" "\$@"
args=("\$@")
for ((i = 0; i < \${#args[@]}; i++)); do
  case \${args[i]} in
    --variant) variant=\${args[i+1]} ;;
    --preset) preset=\${args[i+1]} ;;
    --out) out=\${args[i+1]} ;;
  esac
done
echo "\$variant \$preset \${OMPI_COMM_WORLD_SIZE:-1} \${OMP_NUM_THREADS-unset} \${OMP_WAIT_POLICY-unset}" \
  >> "$dir/env-\$LOG.log"
[[ -n \${CUDA_MPS_PIPE_DIRECTORY:-} ]] && echo "\$variant \$preset" >> "$dir/mps-\$LOG.log"
echo "\${ACCLAB_REFERENCE_DIR-unset}" >> "$dir/references-\$LOG.log"
if [[ \$preset == seed && " \$HANG " == *" \$variant "* ]]; then exec sleep 60; fi
echo '{"results": [{"status": "verified"}]}' > "\$out"
SH
chmod +x "$dir/standin"
# The ladder rows the check reads: one step slow on the seed by design, one not, one
# launch-bound (its seed run in a phase of its own after every other job).
mkdir -p "$dir/ladders/jacobi2d"
cat > "$dir/ladders/jacobi2d/ladder.json" <<'JSON'
{"workload": "jacobi2d", "family": "jacobi", "steps": [
  {"name": "acc_copy_per_iter", "backend": "openacc", "seed_slow": "copies both grids every sweep (test)"},
  {"name": "acc_tuned", "backend": "openacc"},
  {"name": "acc_resident", "backend": "openacc", "seed_limit_s": 30}]}
JSON
share=(--acclab "$dir/standin" --workloads jacobi2d --no-sanitizers --solver-repeats 1
       --ladders "$dir/ladders" --seed-limit 3 --seed-slow-limit 2)
LOG=share HANG="acc_copy_per_iter acc_tuned" python3 "$check" "${share[@]}" --jobs 1 \
  --out "$dir/share" > "$dir/share.txt" 2>&1
check "a seed run cut without a reason from its row: exit 1" test $? -eq 1
check "the cut without a reason is named" \
  grep -q "PROBLEM jacobi2d/acc_tuned seed: cut at 3 s, and its ladder row gives no seed_slow" \
  "$dir/share.txt"
check "the cut by design is printed with its row's reason" \
  grep -q "jacobi2d/acc_copy_per_iter seed: slow by design timeout after 2 s: copies both grids" \
  "$dir/share.txt"
check "every process is given the one ACCLAB_REFERENCE_DIR, so that a reference is computed once" \
  bash -c "test \$(sort -u '$dir/references-share.log' | grep -cvx unset) -eq 1 &&
           ! grep -qx unset '$dir/references-share.log'"
python3 - "$dir/share/LATEST.json" "$dir/env-share.log" 1 <<'PY2'
import json, os, sys
doc = json.load(open(sys.argv[1]))
jobs = int(sys.argv[3])
cores = len(os.sched_getaffinity(0))
problems = []
want = {"share": True, "cores": cores, "jobs": jobs, "threads_per_job": max(1, cores // jobs),
        "omp_wait_policy": "passive",
        "threads_per_rank": {str(r): max(1, cores // jobs // r) for r in (2, 4)},
        "seed_cut_without_reason": ["jacobi2d/acc_tuned"]}
for key, value in want.items():
    if doc.get(key) != value:
        problems.append(f"{key}: {doc.get(key)!r}, expected {value!r}")
if doc["problems"] != ["jacobi2d/acc_tuned seed: cut at 3 s, and its ladder row gives no "
                       "seed_slow reason"]:
    problems.append(f"problems {doc['problems']}")
records = {r["variant"]: r for r in doc["variants"]}
slow, cut = records["acc_copy_per_iter"]["seed"], records["acc_tuned"]["seed"]
if (slow["status"], slow.get("seed_slow"), slow.get("limit_s")) != (
        "slow by design", "copies both grids every sweep (test)", 2):
    problems.append(f"by design: {slow}")
if (cut["status"], cut.get("limit_s")) != ("cut without a reason", 3) or "seed_slow" in cut:
    problems.append(f"without a reason: {cut}")
if not 2 <= slow["seconds"] < 3 or not 3 <= cut["seconds"] < 15:
    problems.append(f"seconds {slow['seconds']}, {cut['seconds']}: not cut at their limits")
seed = doc["seed"]
gpu = sorted(f"jacobi2d/{r['variant']}" for r in doc["variants"]
             if r["backend"] in ("openacc", "omptarget", "cuda") and "seed" in r)
if not gpu or sorted(seed["runs_s"]) != gpu or seed["runs"] != len(gpu):
    problems.append(f"seed runs_s {sorted(seed['runs_s'])} != {gpu}")
if seed["runs_s"].get("jacobi2d/acc_tuned") != cut["seconds"]:
    problems.append("runs_s is not the runs' seconds")
if seed["cut_by_design"] != {"jacobi2d/acc_copy_per_iter": "copies both grids every sweep (test)"}:
    problems.append(f"cut_by_design {seed['cut_by_design']}")
if seed["cut_without_reason"] != ["jacobi2d/acc_tuned"] or doc["seed_slow"] != 2:
    problems.append(f"cut_without_reason {seed['cut_without_reason']}, seed_slow {doc['seed_slow']}")
if seed["verified"] != len(gpu) - 2 or (seed["limit_s"], seed["slow_limit_s"]) != (3, 2):
    problems.append(f"seed verified {seed['verified']}, limits {seed['limit_s']}, {seed['slow_limit_s']}")
# One job at a time: the seed half holds at least the two cut runs, the whole check more.
if not (seed["wall_s"] >= 5 and doc["wall_s"] > seed["wall_s"]):
    problems.append(f"wall times: seed {seed['wall_s']}, whole {doc['wall_s']}")
# Every process: its share, as one of the check's jobs (a rank: its part of its job's share).
lines = [line.split() for line in open(sys.argv[2])]
ranks = [l for l in lines if l[2] != "1"]
for variant, preset, size, threads, policy in lines:
    expected = str(max(1, cores // jobs // int(size)))
    if (threads, policy) != (expected, "passive"):
        problems.append(f"{variant} {preset} on {size} ranks: OMP_NUM_THREADS={threads} "
                        f"OMP_WAIT_POLICY={policy}, expected {expected} and passive")
distributed = [r["variant"] for r in doc["variants"] if "ranks2" in r]
if len(ranks) != 6 * len(distributed) or not distributed:
    problems.append(f"{len(ranks)} rank processes for {distributed}: expected 2 + 4 each")
if len(lines) - len(ranks) != len(gpu) + sum(1 for r in doc["variants"] if "exit" in r["small"]):
    problems.append(f"{len(lines)} processes recorded")
# The launch-bound step's seed run is the last process started, in a phase of its own, and
# the phases are recorded (no MPS here: 3 at a time).
if lines[-1][:2] != ["acc_resident", "seed"]:
    problems.append(f"the last process was {lines[-1][:2]}, not acc_resident's seed run")
phases = doc.get("phases", {})
lb = phases.get("launch_bound", {})
if (lb.get("runs"), lb.get("jobs"), lb.get("mps"), list(lb.get("runs_s", {}))) != (
        1, 3, False, ["jacobi2d/acc_resident"]):
    problems.append(f"launch_bound phase {lb}")
if not (phases.get("main", {}).get("wall_s", 0) > 0 and lb.get("wall_s", -1) >= 0):
    problems.append(f"phases {phases}")
if records["acc_resident"]["seed"]["status"] != "verified":
    problems.append(f"acc_resident seed {records['acc_resident']['seed']}")
print("\n".join(problems) or "share records ok")
sys.exit(1 if problems else 0)
PY2
check "every process given its share, the seed verdicts and times recorded" test $? -eq 0

# --no-share: the environment passes as it is; a seed cut whose row gives the reason is no
# problem.
LOG=noshare HANG="acc_copy_per_iter" OMP_NUM_THREADS=7 env -u OMP_WAIT_POLICY \
  python3 "$check" "${share[@]}" --jobs 2 --no-share --out "$dir/noshare" > "$dir/noshare.txt" 2>&1
check "--no-share, only a cut by design: exit 0" test $? -eq 0
python3 - "$dir/noshare/LATEST.json" "$dir/env-noshare.log" <<'PY2'
import json, sys
doc = json.load(open(sys.argv[1]))
problems = []
for key, value in {"share": False, "threads_per_job": None, "omp_wait_policy": None,
                   "threads_per_rank": None, "seed_cut_without_reason": [], "problems": [],
                   "inherited_environment": {"OMP_NUM_THREADS": "7", "OMP_WAIT_POLICY": None}
                   }.items():
    if doc.get(key) != value:
        problems.append(f"{key}: {doc.get(key)!r}, expected {value!r}")
if list(doc["seed"]["cut_by_design"]) != ["jacobi2d/acc_copy_per_iter"]:
    problems.append(f"cut_by_design {doc['seed']['cut_by_design']}")
lines = [line.split() for line in open(sys.argv[2])]
wrong = [l for l in lines if l[3:] != ["7", "unset"]]
if not lines or wrong:
    problems.append(f"processes given another environment: {wrong[:3]}")
print("\n".join(problems) or "no-share records ok")
sys.exit(1 if problems else 0)
PY2
check "--no-share: every process the check's own environment, recorded so" test $? -eq 0

# --deadline: a run still going when it comes is stopped, every later one is not started,
# and the record is written, partial (as under --budget), not failed: the GPU machine ends a
# call at a hard limit, and a check cut there left no record at all. The seed runs alone, so
# that the hanging one starts within a second or two however busy the machine (after every
# variant's small run, one at a time, it could start after the deadline under ctest -j2).
LOG=deadline HANG="acc_tuned" python3 "$check" "${share[@]}" --seed-limit 40 --jobs 1 \
  --seed-only --deadline 4 --out "$dir/deadline" > "$dir/deadline.txt" 2>&1
check "--deadline: exit 1 (a partial check)" test $? -eq 1
python3 - "$dir/deadline/LATEST.json" <<'PY2'
import json, sys
doc = json.load(open(sys.argv[1]))
problems = []
records = {r["variant"]: r for r in doc["variants"]}
tuned, resident = records["acc_tuned"]["seed"], records["acc_resident"]["seed"]
# The deadline counts from the check's start, so the seed run had less than 4 s of it.
if tuned.get("outcome") != "budget" or not 0.5 <= tuned.get("stopped_after_s", 0) < 4.5:
    problems.append(f"acc_tuned seed {tuned}: not stopped at the 4 s deadline")
if resident.get("outcome") != "budget" or "stopped_after_s" in resident:
    problems.append(f"acc_resident seed {resident}: started after the deadline")
expected = ["not run within --deadline 4 s: jacobi2d/acc_tuned seed (stopped at the deadline "
            "after", "not run within --deadline 4 s: jacobi2d/acc_resident seed (not started "
            "before the deadline)"]
if doc["complete"] or not all(p.startswith("not run within --deadline 4 s: ")
                              for p in doc["problems"]) or not all(
        any(p.startswith(e) for p in doc["problems"]) for e in expected):
    problems.append(f"complete {doc['complete']}, problems {doc['problems']}")
if doc["wall_s"] > 20:
    problems.append(f"the check took {doc['wall_s']} s after a 4 s deadline")
print("\n".join(problems) or "deadline ok")
sys.exit(1 if problems else 0)
PY2
check "--deadline: the run going stopped, the rest not started, a partial record" test $? -eq 0

# --mps on, with a stand-in for the MPS control daemon: it is started before the launch-bound
# phase and quit after it, a small trial run goes first, and only that phase's processes are
# its clients; without the daemon --mps on is refused before anything runs.
mkdir -p "$dir/mpsbin"
cat > "$dir/mpsbin/nvidia-cuda-mps-control" <<SH
#!/usr/bin/env bash
echo "\${1:-\$(cat)} \$CUDA_MPS_PIPE_DIRECTORY" >> "$dir/mps-control.log"
SH
chmod +x "$dir/mpsbin/nvidia-cuda-mps-control"
LOG=mps PATH="$dir/mpsbin:$PATH" python3 "$check" "${share[@]}" --jobs 2 --mps on \
  --out "$dir/mps" > "$dir/mps.txt" 2>&1
check "--mps on with a daemon: exit 0" test $? -eq 0
check "the daemon started, then quit" \
  bash -c "[[ \$(cut -d' ' -f1 '$dir/mps-control.log' | tr '\n' ' ') == '-d quit ' ]]"
check "only the trial and the launch-bound seed run were MPS clients" \
  bash -c "[[ \$(sort '$dir/mps-mps.log' | tr '\n' ' ') == 'acc_resident seed acc_resident small ' ]]"
check "the phase recorded with MPS, all at once" python3 -c "
import json, sys
p = json.load(open('$dir/mps/LATEST.json'))['phases']['launch_bound']
sys.exit(0 if (p['mps'], p['jobs'], list(p['mps_trial'])) == (True, 1, ['jacobi2d/acc_resident'])
         else 1)"
PATH="/usr/bin:/bin" python3 "$check" "${share[@]}" --mps on --out "$dir/nomps" 2> "$dir/nomps.txt"
check "--mps on without the daemon: exit 2" test $? -eq 2
check "--mps on without the daemon: named, nothing run" \
  bash -c "grep -q -- '--mps on: nvidia-cuda-mps-control not found' '$dir/nomps.txt' &&
           [[ ! -e '$dir/nomps' ]]"

# --slow-seeds: only the seed runs of the steps with a seed_slow reason, to the end or the
# --slow-seed-limit, into SLOW-SEEDS.json (never LATEST.json).
for hang in "" acc_copy_per_iter; do
  LOG=slow$hang HANG="$hang" python3 "$check" "${share[@]}" --jobs 2 --slow-seeds \
    --slow-seed-limit 2 --out "$dir/slow-seeds$hang" > "$dir/slow-seeds$hang.txt" 2>&1
  check "--slow-seeds (hang: ${hang:-none}): exit 0" test $? -eq 0
  check "--slow-seeds writes no LATEST.json" test ! -e "$dir/slow-seeds$hang/LATEST.json"
  python3 - "$dir/slow-seeds$hang/SLOW-SEEDS.json" "$dir/env-slow$hang.log" "$hang" <<'PY2'
import json, sys
doc = json.load(open(sys.argv[1]))
hang = sys.argv[3]
problems = []
if doc["schema"] != "acclab.gpu-check.slow-seeds/1" or doc["complete"]:
    problems.append(f"schema {doc['schema']}, complete {doc['complete']}")
runs = {r["variant"]: r["seed"] for r in doc["variants"] if "seed" in r}
if list(runs) != ["acc_copy_per_iter"]:
    problems.append(f"seed runs of {list(runs)}, expected acc_copy_per_iter alone")
lines = [line.split()[:2] for line in open(sys.argv[2])]
if lines != [["acc_copy_per_iter", "seed"]]:
    problems.append(f"processes {lines}")
want = "not finished" if hang else "verified"
seed = runs.get("acc_copy_per_iter", {})
if seed.get("status") != want or doc["not_finished"] != (["jacobi2d/acc_copy_per_iter"] if hang else []):
    problems.append(f"seed {seed}, not_finished {doc['not_finished']}, expected {want}")
if hang and not 2 <= seed.get("seconds", 0) < 12:
    problems.append(f"cut after {seed.get('seconds')} s, not at the 2 s limit")
print("\n".join(problems) or "slow seeds ok")
sys.exit(1 if problems else 0)
PY2
  check "--slow-seeds (hang: ${hang:-none}): the slow step alone, its verdict" test $? -eq 0
done

# A reason that is not one, or on a step the check never runs on the seed: refused up front.
mkdir -p "$dir/bad-ladders/jacobi2d" "$dir/host-ladders/jacobi2d"
echo '{"workload": "jacobi2d", "steps": [{"name": "cuda", "backend": "cuda", "seed_slow": ""}]}' \
  > "$dir/bad-ladders/jacobi2d/ladder.json"
echo '{"workload": "jacobi2d", "steps": [{"name": "serial", "backend": "serial", "seed_slow": "x"}]}' \
  > "$dir/host-ladders/jacobi2d/ladder.json"
for bad in bad-ladders host-ladders; do
  python3 "$check" "${share[@]}" --ladders "$dir/$bad" --out "$dir/$bad-out" 2> "$dir/$bad.txt"
  check "$bad: exit 2" test $? -eq 2
  check "$bad: the row named" grep -q "$bad/jacobi2d/ladder.json: .*seed_slow" "$dir/$bad.txt"
done

# The share's arithmetic, and the reasons this tree's ladders give.
python3 - "$check" <<'PY2'
import importlib.util, sys
spec = importlib.util.spec_from_file_location("gpu_check", sys.argv[1])
gpu_check = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gpu_check)
problems = []
for args, want in [((16, 8), 2), ((16, 12), 1), ((16, 8, 2), 1), ((16, 4, 2), 2),
                   ((16, 1, 4), 4), ((2, 8), 1), ((2, 1, 4), 1), ((64, 8, 4), 2)]:
    if gpu_check.threads_per_job(*args) != want:
        problems.append(f"threads_per_job{args} = {gpu_check.threads_per_job(*args)}, not {want}")
reasons = gpu_check.seed_slow_reasons(gpu_check.LADDERS)
# GCC's one-gang steps carry their reason in the tree's ladders.
for step in [("matmul", "acc_auto"), ("vector", "acc_kernels_copy"), ("diffusion3d", "acc_kernels")]:
    if step not in reasons:
        problems.append(f"{step}: no seed_slow reason in its row")
# The launch-bound steps carry their own seed limit, longer than the default 90 s.
limits = gpu_check.seed_limits(gpu_check.LADDERS)
for step in [("iccg", "omp_target_data"), ("apsp", "omp_target_map")]:
    if not limits.get(step, 0) > 90:
        problems.append(f"{step}: no seed_limit_s above 90 s in its row ({limits.get(step)})")
# A limit that is no positive number is refused, naming the row.
import json, os, tempfile
folder = tempfile.mkdtemp()
os.makedirs(os.path.join(folder, "iccg"))
with open(os.path.join(folder, "iccg", "ladder.json"), "w") as f:
    json.dump({"workload": "iccg", "steps": [{"name": "cuda", "backend": "cuda",
                                              "seed_limit_s": "long"}]}, f)
try:
    gpu_check.seed_limits(folder)
    problems.append("seed_limit_s 'long' accepted")
except ValueError as e:
    if "cuda: seed_limit_s must be a positive number" not in str(e):
        problems.append(f"seed_limit_s 'long': {e}")
print("\n".join(problems) or "share arithmetic and the tree's reasons ok")
sys.exit(1 if problems else 0)
PY2
check "threads per job, and the tree's seed_slow reasons" test $? -eq 0

python3 "$check" --acclab "$acclab" --jobs 0 --out "$dir/usage" 2> "$dir/usage.txt"
check "--jobs 0: exit 2" test $? -eq 2
check "--jobs 0: named" grep -q -- "--jobs 0" "$dir/usage.txt"
check "--jobs 0: nothing written" test ! -e "$dir/usage"

if ((failures)); then
  echo "$failures failed"
  cat "$dir/bad.txt"
  exit 1
fi
