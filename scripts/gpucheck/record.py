"""The gate's verdict and its record: the problems its runs show, whether it names a clean
commit on a GPU, and LATEST.json (or SLOW-SEEDS.json) with the runs' logs beside it."""
import collections
import datetime
import json
import os
import shutil
import socket
import subprocess
import sys
import tarfile
import time

from gpucheck.options import RANKS, SHARED_ENVIRONMENT, SLOW_SEEDS_SCHEMA
from gpucheck.processes import SANITIZER_SETS, threads_per_job


def run_problems(args, records, solvers, info, skipped, stopped):
    """(problems, seed runs cut without a reason) of the runs' records: a run not verified, a
    sanitizer error, solvers whose digests differ, runs the --budget or --deadline left out."""
    problems = [f"not run within --budget {args.budget:g} s: {label}"
                                  for label in skipped]
    problems += [f"not run within --deadline {args.deadline:g} s: {label}" for label in stopped]
    for s in solvers:
        r = s["file"]
        if r.get("outcome") != "budget" and r.get("status") != "verified":
            problems.append(f"acclab {s['command']} FILE --variant {s['variant']}: "
                            f"{r.get('outcome')} {r.get('status')} {r.get('error', '')}".strip())
    digests = {s["file"].get("matrix_digest") for s in solvers
               if s["command"] == "apsp" and s["file"].get("status") == "verified"}
    if len(digests) > 1:
        problems.append(f"acclab apsp FILE: the variants' matrix digests differ: {sorted(digests)}")
    for s in solvers:
        runs = [s["file"]] + s.get("repeats", [])
        if len(runs) == 1 or any(r.get("outcome") == "budget" for r in runs):
            continue
        again = collections.Counter(f"{r.get('status')} {r.get('matrix_digest')}" for r in runs)
        if len(again) > 1:
            problems.append(f"acclab apsp FILE --variant {s['variant']}: {len(runs)} runs gave "
                            f"{dict(again)}")
    seed_cut_without_reason = []
    for r in records:
        label = f"{r['workload']}/{r['variant']}"
        small = r["small"]
        if small.get("outcome") in ("budget", "seed only", "slow seeds only"):
            pass
        elif small["status"] == "unavailable" and r["backend"] == "cuda" and info.get("devices"):
            problems.append(f"{label}: a CUDA variant unavailable on a machine with a GPU")
        elif small["status"] == "unavailable" and small["outcome"] == "not run":
            pass
        elif small["outcome"] != "exited" or small["status"] not in ("verified", "unavailable"):
            problems.append(f"{label} small: {small['outcome']} {small['status']} "
                            f"{small.get('error', '')}".strip())
        seed = r.get("seed")
        if seed and seed.get("outcome") != "budget":
            if seed["status"] == "cut without a reason":
                seed_cut_without_reason.append(label)
                problems.append(f"{label} seed: cut at {seed['limit_s']:g} s, and its ladder row "
                                "gives no seed_slow reason")
            elif seed["outcome"] == "timeout":
                pass  # slow by design (or not finished in --slow-seeds): the record says so
            elif seed["outcome"] != "exited" or seed["status"] not in ("verified", "unavailable"):
                problems.append(f"{label} seed: {seed['outcome']} {seed['status']} "
                                f"{seed.get('error', '')}".strip())
        for ranks in RANKS:
            m = r.get(f"ranks{ranks}")
            if m and m.get("outcome") != "budget" and (m["outcome"] != "exited"
                                                       or m["status"] != "verified"):
                problems.append(f"{label} on {ranks} ranks: {m['outcome']} {m['status']} "
                                f"{m.get('error', '')}".strip())
        for tool in ("memcheck", "racecheck", "synccheck"):
            s = r.get(tool)
            if not s or s.get("outcome") == "budget":
                continue
            if s.get("status") == "unavailable":
                continue
            if s["errors"] is None or s["errors"] > 0 or s["outcome"] != "exited":
                problems.append(f"{label} {tool}: {s['errors']} errors, {s['outcome']}, "
                                f"{s.get('status')}")

    return problems, seed_cut_without_reason


def is_complete(args, skipped, stopped):
    """Whether the check ran everything a gate needs: a partial (dry) run checks the script and
    the variants, not a commit."""
    return (not args.workloads and not args.no_sanitizers and not args.no_seed and
            not args.seed_only and not args.slow_seeds and not args.extra and not skipped
            and not stopped)


def commit_problems(args, info, records, complete):
    """(trees, problems): the gated trees the bundle names, and, for a complete check, what keeps
    it from being the record of a commit on a GPU."""
    build = info.get("build", {})
    problems = []
    # A partial (dry) run checks the script and the variants, not a commit: only a complete one
    # must name a clean commit and its trees.
    trees = provenance_trees(args.acclab, build.get("commit"))
    changes = gated_changes(build, trees)
    if changes and complete:
        problems.append("the binary was built from uncommitted changes: " + ", ".join(changes))
    # The gate is about the GPU: a complete check on a machine where CUDA finds no device or
    # OpenACC falls back to the host (no nvptx plugin, a build without offload) proves nothing.
    if complete and not (info.get("devices") and info.get("openacc_on_gpu")):
        problems.append("no GPU seen: devices {}, openacc_on_gpu {}".format(
            info.get("devices"), info.get("openacc_on_gpu")))
    # Likewise for OpenMP target regions, where the binary has omptarget steps (an older binary's
    # info has no omptarget_on_gpu).
    if (complete and info.get("devices") and "omptarget_on_gpu" in info
            and any(r["backend"] == "omptarget" for r in records)
            and not info.get("omptarget_on_gpu")):
        problems.append("OpenMP target regions ran on the host on a machine with a GPU "
                        "(omptarget_on_gpu false)")
    if trees is None and complete:
        problems.append("no PROVENANCE.json naming the binary's commit beside it "
                        "(scripts/gpu-bundle.sh writes it)")
    return trees, problems


def make_document(args, info, records, solvers, problems, phases, runner, *, trees, complete,
                  seed_cut_without_reason, seed_slow, row_limits, started, gate_start, cores):
    """The record of the check, as LATEST.json (or SLOW-SEEDS.json) holds it."""
    build = info.get("build", {})
    counts = {}
    for r in records:
        counts[r["small"]["status"]] = counts.get(r["small"]["status"], 0) + 1
    sanitizer_errors = {tool: sum((r.get(tool) or {}).get("errors") or 0 for r in records)
                        for tool in ("memcheck", "racecheck", "synccheck")}
    gpus = []
    try:
        gpus = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total",
                               "--format=csv,noheader"], capture_output=True, text=True,
                              timeout=30).stdout.strip().splitlines()
    except (OSError, subprocess.SubprocessError):
        pass
    seed_runs = {f"{r['workload']}/{r['variant']}": r["seed"] for r in records
                 if r.get("seed") and r["seed"].get("outcome") != "budget"}
    seed_spans = [(start, end) for field, start, end in runner.spans if field == "seed"]
    seed_summary = {
        "limit_s": None if args.no_seed else args.seed_limit,
        "slow_limit_s": None if args.no_seed else args.seed_slow_limit,
        "row_limits_s": {f"{w}/{v}": t for (w, v), t in sorted(row_limits.items())},
        # From the first seed run's start to the last one's end (other jobs may still run
        # beside the first ones).
        "wall_s": round(max(e for _, e in seed_spans) - min(s for s, _ in seed_spans), 1)
        if seed_spans else None,
        "runs": len(seed_runs),
        "sum_s": round(sum(x.get("seconds", 0) for x in seed_runs.values()), 1),
        "verified": sum(1 for x in seed_runs.values() if x.get("status") == "verified"),
        "runs_s": {label: x.get("seconds") for label, x in seed_runs.items()},
        "cut_by_design": {label: x["seed_slow"] for label, x in seed_runs.items()
                          if x.get("seed_slow")},
        # A row's reason whose step ran to the end here: the reason may be out of date.
        "by_design_finished": sorted(label for label, x in seed_runs.items()
                                     if x.get("outcome") != "timeout"
                                     and tuple(label.split("/", 1)) in seed_slow),
        "cut_without_reason": seed_cut_without_reason,
    }
    document = {
        "schema": "acclab.gpu-check/1",
        "commit": build.get("commit"),
        "dirty": build.get("dirty"),
        "changed": build.get("changed"),
        "trees": trees,
        "complete": complete,
        "ok": not problems,
        "problems": problems,
        "machine": {"hostname": socket.gethostname(), "gpus": gpus, "devices": info.get("devices"),
                    "openacc_on_gpu": info.get("openacc_on_gpu"),
                    "omptarget_on_gpu": info.get("omptarget_on_gpu")},
        "build": build,
        "command": " ".join([os.path.relpath(sys.argv[0])] + sys.argv[1:]),
        # As acclab's reports carry it: bench/results keeps the provenance of every JSON alike.
        "command_line": [os.path.relpath(sys.argv[0])] + sys.argv[1:],
        "started": started.isoformat(timespec="seconds"),
        "finished": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "wall_s": round(time.monotonic() - gate_start, 1),
        # What every acclab process the check started was given: its share of the cores seen
        # here (sched_getaffinity), or, with --no-share, the environment the check ran in.
        "share": args.share,
        "cores": cores,
        "jobs": args.jobs,
        "threads_per_job": threads_per_job(cores, args.jobs) if args.share else None,
        "threads_per_rank": {str(r): threads_per_job(cores, args.jobs, r) for r in RANKS}
        if args.share else None,
        "omp_wait_policy": "passive" if args.share else None,
        "inherited_environment": {name: os.environ.get(name) for name in SHARED_ENVIRONMENT},
        "summary": {"variants": len(records), "small": counts, "sanitizer_errors": sanitizer_errors,
                    "solvers": dict(sorted(collections.Counter(
                        x["file"].get("status") for x in solvers).items())),
                    "solver_repeats": dict(sorted(collections.Counter(
                        r.get("status") for x in solvers for r in x.get("repeats", [])).items())),
                    "racecheck_warnings": sum((r.get("racecheck") or {}).get("warnings") or 0
                                              for r in records)},
        "sanitizer_sets": SANITIZER_SETS,
        "seed_limit_s": None if args.no_seed else args.seed_limit,
        # Seed runs cut at their limit, by design or not.
        "seed_slow": sum(1 for x in seed_runs.values() if x.get("outcome") == "timeout"),
        "seed_cut_without_reason": seed_cut_without_reason,
        "seed": seed_summary,
        # Each phase's jobs at a time and wall seconds: "main" (every run but the launch-bound
        # seed runs, the solvers too), then "launch_bound" (with or without MPS).
        "phases": phases,
        "variants": records,
        "solvers": solvers,
    }
    if args.slow_seeds:
        # The slow seeds' record, beside LATEST.json: its own name, so that it never stands in
        # for the gate's.
        document["schema"] = SLOW_SEEDS_SCHEMA
        document["slow_seed_limit_s"] = args.slow_seed_limit
        document["not_finished"] = sorted(label for label, x in seed_runs.items()
                                          if x.get("status") == "not finished")
    return document


def write_record(args, document, work):
    """LATEST.json (SLOW-SEEDS.json for --slow-seeds) and the runs' reports and logs as
    runs.tgz beside it; the work folder is removed."""
    # Whole or not at all: an interrupted check must not leave a truncated LATEST.json.
    latest = os.path.join(args.out, "SLOW-SEEDS.json" if args.slow_seeds else "LATEST.json")
    with open(latest + ".tmp", "w") as f:
        json.dump(document, f, indent=1)
        f.write("\n")
    os.replace(latest + ".tmp", latest)
    runs = "slow-seeds-runs.tgz" if args.slow_seeds else "runs.tgz"
    with tarfile.open(os.path.join(args.out, runs), "w:gz") as archive:
        # Not the serial references the runs shared (ACCLAB_REFERENCE_DIR, hundreds of MB):
        # the reports and logs say what each run found.
        archive.add(work, arcname="runs",
                    filter=lambda entry: None if entry.name == "runs/references" else entry)
    shutil.rmtree(work, ignore_errors=True)



def print_summary(args, document):
    """The check's last lines: what ran, with what, and each problem."""
    build, seed = document["build"], document["seed"]
    counts = document["summary"]["small"]
    print(f"gpu-check: commit {build.get('commit')}{' (dirty)' if build.get('dirty') else ''}, "
          f"{len(document['variants'])} variants: {counts}; sanitizer errors "
          f"{document['summary']['sanitizer_errors']}; "
          f"acclab iccg/apsp FILE: {document['summary']['solvers']}")
    cores = document["cores"]
    print("gpu-check: " + (f"each process OMP_NUM_THREADS={document['threads_per_job']} "
                           f"(of {cores} cores, {args.jobs} jobs), OMP_WAIT_POLICY=passive"
                           if args.share else
                           f"--no-share: the environment as it was ({cores} cores, {args.jobs} "
                           f"jobs, {document['inherited_environment']})")
          + f"; seed: {seed['verified']} of {seed['runs']} verified, "
          f"{len(seed['cut_by_design'])} cut by design, "
          f"{len(document['seed_cut_without_reason'])} cut without a reason, seed half "
          f"{seed['wall_s']} s; the whole check {document['wall_s']} s; phases "
          + ", ".join(f"{name} {p['wall_s']} s ({p['jobs']} at a time"
                      + (", MPS" if p.get("mps") else "") + ")"
                      for name, p in document["phases"].items()))
    for problem in document["problems"]:
        print(f"gpu-check: PROBLEM {problem}")


def gated_changes(build, trees):
    """The paths the binary was built with uncommitted (acclab info's build.changed) that lie in
    what it is built from: the folders and files whose trees the bundle's PROVENANCE.json names
    (workloads/, src/ and apps/ at least). An untracked note under bench/ leaves the binary as the
    commit makes it. A dirty build that names no path counts as changed throughout."""
    if not build.get("dirty"):
        return []
    changed = build.get("changed") or []
    if not changed:
        return ["(the build names no changed path)"]
    gated = {"workloads", "src", "apps"} | set(trees or {})
    return [path for path in changed if path.strip("/").split("/")[0] in gated]


def provenance_trees(acclab, commit):
    """The git trees of workloads/, src/ and apps/ at the checked commit, from the PROVENANCE.json
    that scripts/gpu-bundle.sh writes beside the binary (the GPU machine has no git history)."""
    path = os.path.join(os.path.dirname(os.path.abspath(acclab)), "PROVENANCE.json")
    try:
        with open(path) as f:
            provenance = json.load(f)
    except (OSError, ValueError):
        return None
    if not provenance.get("gated_folders_clean", False):
        print(f"gpu-check: {path}: the bundle was made with uncommitted changes in the gated "
              "folders", file=sys.stderr)
        return None
    if provenance.get("commit") != commit:
        print(f"gpu-check: {path} names commit {provenance.get('commit')}, the binary "
              f"{commit}: rebuild and re-bundle", file=sys.stderr)
        return None
    return provenance.get("trees")
