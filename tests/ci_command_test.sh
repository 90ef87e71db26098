#!/usr/bin/env bash
# The README's second command is what .ci/run runs, and both end on the whole test suite. CI takes
# the last ctest summary it sees as the run's tests: a command ending on the gate test alone (one
# test, skipped while the GPU record is stale) read as a run that executed no test.
# usage: ci_command_test.sh REPOSITORY_ROOT
set -u
root=$1
python3 - "$root" <<'PY'
import re, shlex, sys
root = sys.argv[1]
readme = open(f"{root}/README.md").read().split("```sh\n", 1)[1].split("```", 1)[0]
lines = [l for l in readme.splitlines() if l.strip()]
ci = [l for l in open(f"{root}/.ci/run").read().splitlines()
      if l.strip() and not l.startswith("#") and not l.startswith(("set ", "cd "))]
failures = []
if len(lines) != 2:
    failures.append(f"the README's first block has {len(lines)} commands, not 2")
elif ci != [lines[1]]:
    failures.append(f".ci/run runs {ci!r}, not the README's second command {lines[1]!r}")
for name, command in [("README", lines[-1]), (".ci/run", ci[-1] if ci else "")]:
    last = command.split("&&")[-1].split(";")[-1]
    words = shlex.split(last)
    if not words or words[0] != "ctest":
        failures.append(f"{name}: the last command is {last.strip()!r}, not ctest")
    elif any(w in ("-R", "-L", "-E", "-LE", "-I") or w.startswith(("--tests-regex", "--label",
             "--exclude")) for w in words):
        failures.append(f"{name}: the last ctest picks tests ({last.strip()!r}); "
                        "the whole suite must come last")
for f in failures:
    print("FAILED:", f)
sys.exit(1 if failures else 0)
PY
