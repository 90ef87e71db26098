#!/usr/bin/env bash
# The README's workload table and each docs/<workload>.md name every step of the workload's
# ladder table (workloads/<w>/ladder.json), so that a step added to a table and to nothing else
# fails here; and they name no step_like word of the form the ladders use that no table has.
# usage: docs_steps_test.sh REPOSITORY_ROOT
set -u
root=$1
python3 - "$root" <<'PY'
import json, os, re, sys
root = sys.argv[1]
readme = open(os.path.join(root, "README.md")).read()
failures = []
def named(name, text):
    return re.search(r"(?<![A-Za-z0-9_])" + re.escape(name) + r"(?![A-Za-z0-9_])", text)
for w in ["vector", "jacobi2d", "diffusion3d", "matmul", "apsp", "iccg"]:
    table = json.load(open(os.path.join(root, "workloads", w, "ladder.json")))
    steps = [row["name"] for row in table["steps"]]
    rows = [line for line in readme.splitlines() if line.startswith(f"| `{w}`")]
    if len(rows) != 1:
        failures.append(f"README: {len(rows)} rows for {w} in the workload table")
        continue
    page = open(os.path.join(root, "docs", f"{w}.md")).read()
    for step in steps:
        if not named(step, rows[0]):
            failures.append(f"README's {w} row does not name the step {step}")
        if not named(step, page):
            failures.append(f"docs/{w}.md does not name the step {step}")
    # Words shaped like this ladder's step names (omp_target_*, triad_*, ...) must be steps.
    prefixes = sorted({s.split("_")[0] + "_" for s in steps if "_" in s})
    for word in set(re.findall(r"(?<![A-Za-z0-9_/.-])([a-z]+_[a-z0-9_]+)(?![A-Za-z0-9_])", rows[0])):
        if any(word.startswith(p) for p in prefixes) and word not in steps:
            if not re.search(re.escape(word) + r"=", rows[0]):  # --set key=value is a parameter
                failures.append(f"README's {w} row names {word}, which is no step of its table")
for f in failures:
    print("FAILED:", f)
if not failures:
    print("ok: the README's table and docs/<w>.md name every step of the ladder tables")
sys.exit(1 if failures else 0)
PY
