#!/usr/bin/env python3
"""The GPU gate's record as CI reads it (bench/results/gpu-check/LATEST.json).

CI has no GPU and the GPU machine is not always there, so the record is a fact to report, not a
door that a missing GPU can lock:

- pass (0): a complete gate that passed, on exactly this checkout's gated trees;
- skip (77): the gated folders changed since the recorded gate, passed or failed (or the record
  is of a partial gate on these trees): the record is stale, and the output says which commit it
  names, which folders differ and the command that refreshes it;
- fail (1): the record cannot be trusted (malformed, a wrong schema, "complete" but partial,
  "on a GPU" with no GPU in its machine), or it records problems on trees equal to this
  checkout's: a known GPU failure of this very code.

usage: gpu_gate.py SOURCE_DIR [LATEST.json]
"""
import importlib.util
import json
import os
import subprocess
import sys

SKIP = 77  # ctest's SKIP_RETURN_CODE for gpu_gate
SCHEMA = "acclab.gpu-check/1"
GATED = ("workloads", "src", "apps")
SANITIZERS = ("memcheck", "racecheck", "synccheck")
GPU_BACKENDS = ("openacc", "omptarget", "cuda")
# Options of scripts/gpu-check.py that make a check partial: a record made with one of them and
# marked complete is not what it claims.
PARTIAL_OPTIONS = ("--workloads", "--no-seed", "--seed-only", "--slow-seeds", "--no-sanitizers",
                   "--extra")
REFRESH = ("cmake --preset gpu && cmake --build build-gpu && scripts/gpu-bundle.sh, then on the "
           "GPU machine: bash scripts/gpu-check.sh (README, \"The GPU gate\")")


def load_gpu_check(root):
    spec = importlib.util.spec_from_file_location("gpu_check",
                                                  os.path.join(root, "scripts", "gpu-check.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def ladder_steps(root):
    """{(workload, step): row} from every workloads/*/ladder.json of this checkout."""
    steps = {}
    folder = os.path.join(root, "workloads")
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name, "ladder.json")
        if os.path.isfile(path):
            with open(path) as f:
                ladder = json.load(f)
            for row in ladder["steps"]:
                steps[(ladder["workload"], row["name"])] = row
    return steps


def untrusted(doc):
    """Reasons the record cannot be believed whatever trees it names."""
    reasons = []
    if not isinstance(doc, dict):
        return ["the record is not a JSON object"]
    if doc.get("schema") != SCHEMA:
        reasons.append(f"schema {doc.get('schema')!r}, not {SCHEMA!r}")
        return reasons
    for field, kind in (("commit", str), ("trees", dict), ("variants", list),
                        ("machine", dict), ("summary", dict)):
        if not isinstance(doc.get(field), kind):
            reasons.append(f"field {field!r} missing or not a {kind.__name__}")
    if reasons:
        return reasons
    machine = doc["machine"]
    claims_gpu = bool(machine.get("gpus") or machine.get("openacc_on_gpu")
                      or machine.get("omptarget_on_gpu") or doc.get("complete"))
    if claims_gpu and not machine.get("devices"):
        reasons.append("the record claims a GPU (complete, gpus or *_on_gpu) but its machine "
                       "lists no device")
    if doc.get("complete"):
        reasons += partial_in_fact(doc)
    return reasons


def partial_in_fact(doc):
    """What a record marked complete lacks to be a complete gate."""
    missing = []
    line = doc.get("command_line") or []
    used = [o for o in PARTIAL_OPTIONS if any(a == o or a.startswith(o + "=") for a in line)]
    if used:
        missing.append(f"made with {', '.join(used)}")
    errors = (doc["summary"].get("sanitizer_errors") or {})
    absent = [tool for tool in SANITIZERS if not isinstance(errors.get(tool), int)]
    if absent:
        missing.append(f"no sanitizer count for {', '.join(absent)}")
    if not isinstance(doc.get("seed"), dict):
        missing.append("no seed half")
    if not doc.get("solvers"):
        missing.append("no solver runs")
    if not doc.get("machine", {}).get("openacc_on_gpu"):
        missing.append("OpenACC did not run on the GPU")
    no_small = [f"{r.get('workload')}/{r.get('variant')}" for r in doc["variants"]
                if "small" not in r]
    if no_small:
        missing.append(f"no small run for {no_small}")
    not_run = [p for p in doc.get("problems") or [] if "not run within" in p]
    if not_run:
        missing.append(f"{len(not_run)} runs not started within the budget")
    return [f"marked complete but partial: {m}" for m in missing]


def problems_on_these_trees(doc, steps):
    """The failures a record shows of the code it checked."""
    found = []
    # Runs the budget left out make a record partial, not failed: what did run is judged.
    problems = [p for p in doc.get("problems") or [] if not p.startswith("not run within")]
    if problems or (not doc.get("ok") and not doc.get("problems")):
        found.append(f"the gate found problems: {problems or 'ok is false'}")
    if doc.get("seed_cut_without_reason"):
        found.append(f"seed runs cut without their row's seed_slow reason: "
                     f"{doc['seed_cut_without_reason']}")
    for r in doc["variants"]:
        label = f"{r.get('workload')}/{r.get('variant')}"
        status = (r.get("small") or {}).get("status")
        if status not in ("verified", "unavailable"):
            found.append(f"{label} small: {status}")
        for tool in SANITIZERS:
            errors = (r.get(tool) or {}).get("errors")
            if errors:
                found.append(f"{label} {tool}: {errors} errors")
    # Every step of these trees' ladders must be in a complete record of them.
    recorded = {(r.get("workload"), r.get("variant")) for r in doc["variants"]}
    absent = sorted(f"{w}/{s}" for (w, s) in steps if (w, s) not in recorded)
    if doc.get("complete") and absent:
        found.append(f"steps of this checkout's ladders missing from the record: {absent}")
    return found


def main(argv):
    if len(argv) not in (2, 3):
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    root = argv[1]
    latest = argv[2] if len(argv) == 3 else os.path.join(root, "bench", "results", "gpu-check",
                                                         "LATEST.json")
    if subprocess.run(["git", "-C", root, "rev-parse", "HEAD"],
                      capture_output=True).returncode != 0:
        print("SKIPPED: not a git checkout: the gate compares git trees")
        return SKIP
    try:
        with open(latest) as f:
            doc = json.load(f)
    except FileNotFoundError:
        print(f"FAILED: no {latest}: run {REFRESH}")
        return 1
    except ValueError as e:
        print(f"FAILED: {latest} is not JSON: {e}")
        return 1
    reasons = untrusted(doc)
    if reasons:
        for r in reasons:
            print(f"FAILED: {latest}: {r}")
        return 1

    trees = doc["trees"]
    differ = []
    for folder in sorted(set(GATED) | set(trees)):
        here = subprocess.run(["git", "-C", root, "rev-parse", f"HEAD:{folder}"],
                              capture_output=True, text=True).stdout.strip()
        if trees.get(folder) != here:
            differ.append(folder)
    # A binary built with uncommitted changes in the gated folders checked other trees than the
    # ones it names (scripts/gpu-check.py's own rule).
    dirty = load_gpu_check(root).gated_changes(
        {"dirty": doc.get("dirty"), "changed": doc.get("changed")}, trees)
    verdict = "passed" if doc.get("ok") and doc.get("complete") else "failed or partial"
    if differ or dirty:
        print(f"SKIPPED: the GPU gate's record is stale: it names commit {doc['commit']} "
              f"({verdict}, {doc.get('finished', 'no date')}, on "
              f"{', '.join(doc['machine'].get('gpus') or ['?'])})")
        if differ:
            print(f"  gated paths changed since: {', '.join(differ)}")
        if dirty:
            print(f"  that binary was built with uncommitted changes: {', '.join(dirty)}")
        print(f"  refresh it: {REFRESH}")
        return SKIP

    found = problems_on_these_trees(doc, ladder_steps(root))
    if found:
        for f in found:
            print(f"FAILED: the record of commit {doc['commit']}, on this checkout's trees: {f}")
        return 1
    if not doc.get("complete"):
        print(f"SKIPPED: the record of commit {doc['commit']} is of a partial gate on these "
              f"trees (no problems found in what it ran): refresh it: {REFRESH}")
        return SKIP
    print(f"ok: LATEST.json checked commit {doc['commit']} with this checkout's gated trees "
          f"on {', '.join(doc['machine'].get('gpus') or ['?'])}; {doc['summary']}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
