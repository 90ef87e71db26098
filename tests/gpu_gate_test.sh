#!/usr/bin/env bash
# The GPU gate as CI sees it: bench/results/gpu-check/LATEST.json must come from a complete
# scripts/gpu-check.sh run that passed, on a build whose workloads/, src/ and apps/ are exactly
# this checkout's (compared as git trees, which a shallow clone also has).
# usage: gpu_gate_test.sh SOURCE_DIR
set -u
root=$1
latest=$root/bench/results/gpu-check/LATEST.json
if ! git -C "$root" rev-parse HEAD > /dev/null 2>&1; then
  echo "not a git checkout: the gate compares git trees"
  exit 77  # ctest SKIP_RETURN_CODE
fi
[[ -f $latest ]] || { echo "FAILED: no $latest (run scripts/gpu-check.sh on the H200)"; exit 1; }
python3 - "$root" "$latest" <<'PY'
import importlib.util, json, subprocess, sys
root, latest = sys.argv[1], sys.argv[2]
doc = json.load(open(latest))
failures = []
if doc.get("schema") != "acclab.gpu-check/1":
    failures.append(f"schema {doc.get('schema')!r}")
if not doc.get("complete"):
    failures.append("a partial check (some workloads, seed or sanitizers left out)")
if not doc.get("ok") or doc.get("problems"):
    failures.append(f"the check found problems: {doc.get('problems')}")
# A seed run cut with no reason in its ladder row is a problem of its own (older reports have
# no such list).
if doc.get("seed_cut_without_reason"):
    failures.append(f"seed runs cut without a seed_slow reason: {doc['seed_cut_without_reason']}")
# Uncommitted files where the binary is not built from (a note under bench/) do not count:
# the same rule as the check's own (scripts/gpu-check.py's gated_changes).
spec = importlib.util.spec_from_file_location("gpu_check", f"{root}/scripts/gpu-check.py")
gpu_check = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gpu_check)
changes = gpu_check.gated_changes({"dirty": doc.get("dirty"), "changed": doc.get("changed")},
                                  doc.get("trees"))
if changes:
    failures.append(f"the checked binary was built from uncommitted changes: {changes}")
for r in doc.get("variants", []):
    status = r.get("small", {}).get("status")
    if status not in ("verified", "unavailable"):
        failures.append(f"{r.get('workload')}/{r.get('variant')} small: {status}")
trees = doc.get("trees") or {}
machine = doc.get("machine") or {}
if not (machine.get("devices") and machine.get("openacc_on_gpu")):
    failures.append("the check did not run on a GPU (devices or openacc_on_gpu missing)")
# workloads/, src/ and apps/ always; the build configuration (cmake/, CMakeLists.txt,
# CMakePresets.json) wherever the check recorded it (scripts/gpu-bundle.sh does since it gates
# them too).
for folder in sorted({"workloads", "src", "apps"} | set(trees)):
    here = subprocess.run(["git", "-C", root, "rev-parse", f"HEAD:{folder}"],
                          capture_output=True, text=True).stdout.strip()
    if trees.get(folder) != here:
        failures.append(f"{folder}/ differs from the checked commit {doc.get('commit')} "
                        f"(tree {trees.get(folder)} there, {here} here): run scripts/gpu-check.sh")
for f in failures:
    print("FAILED:", f)
if not failures:
    print(f"ok: LATEST.json checked commit {doc['commit']} with these workloads/, src/, apps/; "
          f"{doc['summary']}")
sys.exit(1 if failures else 0)
PY
