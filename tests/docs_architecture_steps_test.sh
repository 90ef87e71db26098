#!/usr/bin/env bash
# The step tables of docs/architecture.md are what the script printed under them ("Regenerating
# the table") prints from today's ladder.json files and sources: a step added, moved, renamed or
# given a tuning fails here until the tables are regenerated, and so does a script that no
# longer runs.
# usage: docs_architecture_steps_test.sh REPOSITORY_ROOT
set -u
cd "${1:?usage: docs_architecture_steps_test.sh REPOSITORY_ROOT}" || exit 1
python3 - <<'PY'
import subprocess, sys
doc = open("docs/architecture.md").read().splitlines()
start = doc.index("### Regenerating the table")
opening = doc.index("```python", start)
closing = doc.index("```", opening + 1)
script = "\n".join(doc[opening + 1:closing])
run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
if run.returncode != 0:
    print("FAILED: the script under the step tables does not run:\n" + run.stderr[-2000:])
    sys.exit(1)
printed = run.stdout.strip("\n").splitlines()
first = doc.index(printed[0]) if printed and printed[0] in doc else -1
if first < 0:
    print(f"FAILED: the script's first line is nowhere in the page: {printed[:1]}")
    sys.exit(1)
tables = "\n".join(doc[first:start]).strip("\n").splitlines()
failures = 0
if tables != printed:
    failures += 1
    print("FAILED: the step tables differ from what the script prints (regenerate them as the "
          "page says); first difference:")
    for a, b in zip(tables + [""] * len(printed), printed + [""] * len(tables)):
        if a != b:
            print(f"  page:   {a}\n  script: {b}")
            break
else:
    rows = sum(1 for l in printed if l[:3].strip("| ").isdigit())
    print(f"ok: the step tables ({rows} rows) are what the script prints")
sys.exit(1 if failures else 0)
PY
