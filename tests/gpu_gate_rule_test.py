#!/usr/bin/env python3
"""Tests of the gate's test: tests/gpu_gate.py run on records written for a clone of this
checkout, before and after a commit under src/. A stale record (passed or failed) is skipped with
the recorded commit and the refresh command; a record that cannot be trusted, or that shows
problems on the clone's own trees, fails; a complete passing record of the clone's trees passes.

usage: gpu_gate_rule_test.py SOURCE_DIR
"""
import copy
import json
import os
import subprocess
import sys
import tempfile

SKIP = 77


def git(repo, *args):
    return subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True,
                          text=True).stdout.strip()


def passing_record(clone):
    """A complete gate that passed on the clone's HEAD: every ladder step verified on small
    (seed and sanitizer runs on the GPU ones), the three sanitizers at 0, the solvers run."""
    variants = []
    folder = os.path.join(clone, "workloads")
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name, "ladder.json")
        if not os.path.isfile(path):
            continue
        with open(path) as f:
            ladder = json.load(f)
        for row in ladder["steps"]:
            record = {"workload": ladder["workload"], "variant": row["name"],
                      "backend": row["backend"], "small": {"status": "verified", "exit": 0}}
            if row["backend"] in ("openacc", "omptarget", "cuda"):
                record["seed"] = {"status": "verified", "exit": 0}
                record["memcheck"] = {"status": "verified", "errors": 0}
            variants.append(record)
    trees = {p: git(clone, "rev-parse", f"HEAD:{p}")
             for p in ("workloads", "src", "apps", "cmake", "CMakeLists.txt",
                       "CMakePresets.json")}
    return {
        "schema": "acclab.gpu-check/1", "commit": git(clone, "rev-parse", "HEAD"),
        "dirty": False, "changed": [], "trees": trees, "complete": True, "ok": True,
        "problems": [], "finished": "2026-12-07T00:00:00+00:00",
        "command_line": ["scripts/gpu-check.py", "--budget", "420"],
        "machine": {"gpus": ["NVIDIA H100 80GB HBM3"], "openacc_on_gpu": True,
                    "omptarget_on_gpu": True,
                    "devices": [{"api": "cuda", "index": 0, "name": "NVIDIA H100 80GB HBM3"}]},
        "summary": {"variants": len(variants),
                    "sanitizer_errors": {"memcheck": 0, "racecheck": 0, "synccheck": 0}},
        "seed": {"runs": 1, "verified": 1}, "seed_cut_without_reason": [],
        "solvers": [{"command": "iccg", "variant": "original"}],
        "variants": variants,
    }


def main():
    root = sys.argv[1]
    gate = os.path.join(root, "tests", "gpu_gate.py")
    if subprocess.run(["git", "-C", root, "rev-parse", "HEAD"], capture_output=True).returncode:
        print("not a git checkout")
        return SKIP
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        clone = os.path.join(tmp, "clone")
        subprocess.run(["git", "clone", "-q", root, clone], check=True)
        git(clone, "config", "user.email", "gate-test@example.invalid")
        git(clone, "config", "user.name", "gate test")
        # The gate's checker of this checkout, whatever the clone's HEAD has committed.
        os.makedirs(os.path.join(clone, "scripts", "gpucheck"), exist_ok=True)
        for path in ["tests/gpu_gate.py", "scripts/gpu-check.py"] + [
                os.path.join("scripts", "gpucheck", name)
                for name in os.listdir(os.path.join(root, "scripts", "gpucheck"))
                if name.endswith(".py")]:
            with open(os.path.join(root, path)) as src, open(os.path.join(clone, path), "w") as d:
                d.write(src.read())

        def check(name, record, expect_rc, expect_text=()):
            path = os.path.join(tmp, "".join(c if c.isalnum() else "_" for c in name) + ".json")
            with open(path, "w") as f:
                f.write(record if isinstance(record, str) else json.dumps(record))
            run = subprocess.run([sys.executable, gate, clone, path], capture_output=True,
                                 text=True)
            out = run.stdout + run.stderr
            missing = [t for t in expect_text if t not in out]
            if run.returncode != expect_rc or missing:
                failures.append(f"{name}: exit {run.returncode} (expected {expect_rc}), "
                                f"missing {missing} in:\n{out}")
            else:
                print(f"ok {name}: exit {run.returncode}")

        good = passing_record(clone)
        check("passing record of these trees", good, 0, ["ok: LATEST.json checked commit"])

        failed = copy.deepcopy(good)
        failed["ok"] = False
        failed["problems"] = ["jacobi2d/omp_target_resident memcheck: 4524 errors"]
        check("failed record of these trees", failed, 1, ["FAILED", "4524 errors"])

        one_short = copy.deepcopy(good)
        gone = one_short["variants"].pop()
        check("complete record one step short", one_short, 1,
              [f"{gone['workload']}/{gone['variant']}"])

        sanitizer = copy.deepcopy(good)
        sanitizer["variants"][-1]["memcheck"] = {"status": "verified", "errors": 3}
        check("sanitizer errors in a record marked ok", sanitizer, 1, ["memcheck: 3 errors"])

        unverified = copy.deepcopy(good)
        unverified["variants"][0]["small"]["status"] = "failed"
        check("a step failed on small", unverified, 1, ["small: failed"])

        partial_clean = copy.deepcopy(good)
        partial_clean["complete"] = False
        partial_clean["command_line"] += ["--workloads", "vector"]
        check("partial record with no problems on these trees", partial_clean, SKIP,
              ["partial gate"])

        budget_only = copy.deepcopy(partial_clean)
        budget_only["ok"] = False
        budget_only["problems"] = ["not run within --budget 400 s: iccg/unified seed"]
        check("partial record, runs left out by the budget only", budget_only, SKIP,
              ["partial gate"])
        budget_and_failure = copy.deepcopy(budget_only)
        budget_and_failure["problems"].append("iccg/cuda small: exited failed")
        check("partial record with a failure besides the budget", budget_and_failure, 1,
              ["iccg/cuda small: exited failed"])

        check("malformed record", '{"schema": "acclab.gpu-check/1", ', 1, ["not JSON"])
        wrong = dict(good, schema="acclab.gpu-check/0")
        check("wrong schema", wrong, 1, ["schema"])
        claims_complete = copy.deepcopy(good)
        claims_complete["command_line"] += ["--no-seed"]
        check("complete but made with --no-seed", claims_complete, 1, ["--no-seed"])
        no_sanitizer = copy.deepcopy(good)
        del no_sanitizer["summary"]["sanitizer_errors"]["synccheck"]
        check("complete without a sanitizer's count", no_sanitizer, 1, ["synccheck"])
        no_gpu = copy.deepcopy(good)
        no_gpu["machine"]["devices"] = []
        check("claims a GPU, lists none", no_gpu, 1, ["lists no device"])

        dirty = copy.deepcopy(good)
        dirty.update(dirty=True, changed=["src/core/report.cpp"])
        check("binary built with uncommitted gated changes", dirty, SKIP,
              ["uncommitted", "src/core/report.cpp"])

        # A commit under src/ after the gate: both records are now stale, and skipped.
        with open(os.path.join(clone, "src", "gate_test_change.txt"), "w") as f:
            f.write("a change after the gate\n")
        git(clone, "add", "src/gate_test_change.txt")
        git(clone, "commit", "-q", "-m", "a change under src/ after the gate")
        for name, record in (("passing record, src/ changed since", good),
                             ("failed record, src/ changed since", failed)):
            check(name, record, SKIP, [good["commit"], "src", "scripts/gpu-check.sh"])
        # Untrustworthy records still fail when stale.
        check("stale and claims a GPU it lacks", no_gpu, 1, ["lists no device"])
    for f in failures:
        print("FAILED:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
