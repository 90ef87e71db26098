#!/usr/bin/env bash
# scripts/gpu-check.py as a dry run where there is no GPU (no sanitizers, no seed runs, one
# workload): its records, its verdict and its exit status.
# usage: gpu_check_test.sh ACCLAB_BINARY GPU_CHECK_SCRIPT
set -u
acclab=$1
check=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
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

python3 "$check" --acclab "$acclab" --jobs 0 --out "$dir/usage" 2> "$dir/usage.txt"
check "--jobs 0: exit 2" test $? -eq 2
check "--jobs 0: named" grep -q -- "--jobs 0" "$dir/usage.txt"
check "--jobs 0: nothing written" test ! -e "$dir/usage"

if ((failures)); then
  echo "$failures failed"
  cat "$dir/bad.txt"
  exit 1
fi
