#!/usr/bin/env python3
"""The GPU gate: every registered variant of every workload, each in its own process, then
compute-sanitizer over the GPU variants, and acclab iccg/apsp FILE with every variant they take;
writes LATEST.json naming the commit it checked.

Run by scripts/gpu-check.sh (which says how, and where); `--help` lists the options. Exit status
0 when every variant verified (or is unavailable) and the sanitizers found nothing, 1 otherwise,
2 for bad usage.
"""
import argparse
import collections
import concurrent.futures
import datetime
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tarfile
import tempfile
import time

GPU_BACKENDS = ("openacc", "omptarget", "cuda")

# The sanitizers slow GPU code 10 to 100 times. Where the small preset then takes minutes (a
# step that runs its kernels on one gang, one that copies every step), the sanitizer runs take
# fewer steps of the same code paths.
SANITIZER_SETS = {
    "vector": ["nx=512", "ny=512", "nt=2"],
    "diffusion3d": ["end_time=0.02"],
}


# The distributed (MPI) steps also run on this many ranks, sharing the machine's GPU(s).
RANKS = (2, 4)

# The commands users run on their own files, with every variant they take, on small files of
# tests/data: the ladder runs above never pass through these commands' readers, defaults and
# checks. acclab iccg on 494_bus (b = A 1: the error from the ones is known), acclab apsp on
# polbooks (min-plus; the successors followed and re-summed where the variant keeps them). Every
# variant's matrix digest must be the same: they all compute the serial loop's result bit for bit.
DATA = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
                                    "data"))
ICCG_FILE_VARIANTS = ("original", "optimized", "cuda", "cusparse")
ICCG_FILE = "matrices/494_bus.mtx"
APSP_FILE = "graphs/polbooks.mtx"


def mpirun_prefix(ranks):
    """mpirun for `ranks` ranks on this machine (as root, as CI and the GPU machine run)."""
    return [shutil.which("mpirun") or "mpirun", "--allow-run-as-root", "--oversubscribe", "-q",
            "-np", str(ranks)]


def fail_usage(message):
    print(f"gpu-check: {message}", file=sys.stderr)
    sys.exit(2)


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--acclab", default=os.environ.get("ACCLAB", "./bundle/acclab"),
                   help="the acclab binary (default $ACCLAB or ./bundle/acclab)")
    p.add_argument("--out", default="bench/results/gpu-check",
                   help="folder for LATEST.json and runs.tgz (default bench/results/gpu-check)")
    p.add_argument("--jobs", type=int, default=4,
                   help="processes at a time (one GPU serves several small runs; default 4)")
    p.add_argument("--workloads", default="",
                   help="comma-separated workloads (default: all; a partial check is marked so)")
    p.add_argument("--seed-limit", type=float, default=30,
                   help="seconds a variant may take on the seed preset (GPU variants only); one "
                        "that takes longer is recorded as slow, not as failed (default 30)")
    p.add_argument("--no-seed", action="store_true", help="skip the seed-preset runs")
    p.add_argument("--no-sanitizers", action="store_true",
                   help="skip compute-sanitizer (for a dry run on a machine without one; the "
                        "report then says it is not a gate result)")
    p.add_argument("--timeout", type=float, default=900,
                   help="seconds before any one process is killed as hung (default 900)")
    p.add_argument("--budget", type=float, default=0,
                   help="seconds for the whole check (0: no limit); jobs not started by then are "
                        "recorded as not run and the check as incomplete, so that a report is "
                        "written even when the GPU machine's time is short")
    p.add_argument("--solver-repeats", type=int, default=4,
                   help="runs of each acclab apsp FILE variant, each its own process, all of "
                        "which must give one digest: a race shows in some runs only (default 4)")
    p.add_argument("--extra", action="append", default=[],
                   help="an extra argument for every acclab run (testing: --extra=--corrupt-result)")
    args = p.parse_args()
    if args.jobs < 1:
        fail_usage(f"--jobs {args.jobs}: must be at least 1")
    if args.solver_repeats < 1:
        fail_usage(f"--solver-repeats {args.solver_repeats}: must be at least 1")
    if not (os.path.isfile(args.acclab) and os.access(args.acclab, os.X_OK)):
        fail_usage(f"--acclab {args.acclab}: no executable there (build, then scripts/gpu-bundle.sh)")
    return args


def sanitizer_binary():
    found = shutil.which("compute-sanitizer")
    if found:
        return found
    for candidate in ("/usr/local/cuda/bin/compute-sanitizer",
                      "/usr/local/cuda/compute-sanitizer/compute-sanitizer"):
        if os.access(candidate, os.X_OK):
            return candidate
    return None


def run_process(command, timeout, log_path):
    """Runs `command`, its stdout and stderr into log_path; returns (exit status, seconds, text).
    The exit status is negative for a signal, None for a timeout."""
    start = time.monotonic()
    with open(log_path, "w") as log:
        # A session of its own, so that a timeout ends the whole group: killing
        # compute-sanitizer alone would leave its acclab on the GPU beside the next jobs.
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL, start_new_session=True)
        try:
            status = process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            # SIGTERM first: acclab removes its --out temporary on it; SIGKILL would leave
            # a hidden ".NAME.tmp-PID-N" in the runs folder for every timed-out run.
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
            status = None
    with open(log_path, errors="replace") as log:
        text = log.read()
    return status, time.monotonic() - start, text


def last_line(text):
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1][:500] if lines else ""


def process_record(command, status, seconds, text):
    """What run_process saw of one acclab process: its command, exit status, time and outcome
    (timeout, aborted by a signal, or exited)."""
    record = {"command": " ".join(command), "exit": status, "seconds": round(seconds, 2)}
    if status is None:
        record["outcome"] = "timeout"
    elif status < 0 or status > 128:
        record["outcome"] = "aborted"
        record["signal"] = -status if status < 0 else status - 128
        record["error"] = last_line(text)
    else:
        record["outcome"] = "exited"
    return record


class Check:
    def __init__(self, args, work):
        self.args = args
        self.work = work  # folder of the per-run JSON reports and logs

    def acclab_run(self, workload, variant, preset, tag, timeout, prefix=(), sets=()):
        """One `acclab run` of one variant in its own process; the record of what happened."""
        name = f"{workload}.{variant}.{tag}"
        report = os.path.join(self.work, name + ".json")
        command = list(prefix) + [self.args.acclab, "run", workload, "--variant", variant,
                                  "--preset", preset, "--reps", "1", "--format", "json",
                                  "--out", report] + self.args.extra
        for setting in sets:
            command += ["--set", setting]
        status, seconds, text = run_process(command, timeout, os.path.join(self.work, name + ".log"))
        record = process_record(command[len(prefix):], status, seconds, text)
        try:
            with open(report) as f:
                results = json.load(f)["results"]
            record["status"] = results[0]["status"] if results else "missing"
            if results and results[0].get("error"):
                record["error"] = results[0]["error"]
            if results:
                outputs = results[0].get("outputs", {})
                for key in ("difference", "tolerance"):
                    if key in outputs:
                        record[key] = outputs[key]
                if results[0].get("note"):
                    record["note"] = results[0]["note"]
        except (OSError, ValueError, KeyError, IndexError, TypeError):
            record["status"] = "no report"
            if status not in (0, None) and "error" not in record:
                record["error"] = last_line(text)
        return record, text

    def solver_run(self, command_name, variant, arguments, timeout, repeat=0):
        """One `acclab iccg FILE` or `acclab apsp FILE` with one variant, its JSON report's
        verdict: converged (iccg), no broken path (apsp). REPEAT > 0: the same run again, its
        log apart."""
        name = f"{command_name}-file.{variant}" + (f".repeat{repeat}" if repeat else "")
        command = [self.args.acclab, command_name] + arguments + ["--variant", variant,
                                                                   "--format", "json"]
        status, seconds, text = run_process(command, timeout, os.path.join(self.work, name + ".log"))
        record = process_record(command, status, seconds, text)
        try:
            report = json.loads(text[text.index("{"):])
        except ValueError:
            record["status"] = "no report"
            record["error"] = last_line(text)
            return record
        if command_name == "iccg":
            record["iterations"] = report.get("iterations")
            record["error_from_ones"] = report.get("error_from_ones")
            good = report.get("status") == "converged"
        else:
            record["matrix_digest"] = report.get("matrix_digest")
            paths = report.get("paths") or {}
            record["paths_checked"] = paths.get("checked", 0)
            good = paths.get("broken", 0) == 0
        record["status"] = "verified" if status == 0 and good else "failed"
        return record

    def sanitize(self, tool, workload, variant):
        sanitizer = sanitizer_binary()
        prefix = [sanitizer, "--tool", tool, "--print-limit", "20"]
        if tool == "memcheck":
            # libgomp probes an optional symbol with cuModuleGetGlobal; the failed lookup is
            # reported as two API errors that are not faults.
            prefix += ["--report-api-errors", "no"]
        record, text = self.acclab_run(workload, variant, "small", tool, self.args.timeout, prefix,
                                       SANITIZER_SETS.get(workload, ()))
        if tool == "racecheck":
            # Errors are races; warnings are hazards racecheck cannot prove harmful or harmful
            # (seen only inside cuSPARSE's own kernels): counted apart, not failures.
            found = re.findall(r"RACECHECK SUMMARY: \d+ hazards? displayed \((\d+) errors?, "
                               r"(\d+) warnings?\)", text)
            if found:
                record["warnings"] = int(found[-1][1])
            found = [errors for errors, _ in found]
        else:
            found = re.findall(r"ERROR SUMMARY: (\d+) errors?", text)
        record["errors"] = int(found[-1]) if found else None
        return record


def main():
    args = parse_args()
    if not args.no_sanitizers and not sanitizer_binary():
        fail_usage("compute-sanitizer not found (on the PATH or in /usr/local/cuda/bin); "
                   "--no-sanitizers for a dry run")
    os.makedirs(args.out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="gpu-check-")
    # One host bandwidth probe for the whole check, not one per process.
    os.environ.setdefault("ACCLAB_CACHE_DIR", os.path.join(work, "cache"))
    started = datetime.datetime.now(datetime.timezone.utc)

    # Measured here once, before the pool: processes started together would each measure the
    # host bandwidth at the same time, against each other.
    info = json.loads(subprocess.run([args.acclab, "info", "--probe", "--format", "json"],
                                     check=True, capture_output=True, text=True).stdout)
    listing = json.loads(subprocess.run([args.acclab, "list", "--format", "json"], check=True,
                                        capture_output=True, text=True).stdout)
    variants = listing["variants"]
    if args.workloads:
        wanted = args.workloads.split(",")
        known = {v["workload"] for v in variants}
        for w in wanted:
            if w not in known:
                fail_usage(f"--workloads {args.workloads}: no workload '{w}'")
        variants = [v for v in variants if v["workload"] in wanted]

    check = Check(args, work)
    jobs = []  # (variant index, field, callable)
    records = [{"workload": v["workload"], "variant": v["variant"], "backend": v["backend"]}
               for v in variants]
    for i, v in enumerate(variants):
        w, name, gpu = v["workload"], v["variant"], v["backend"] in GPU_BACKENDS
        if not v["available"]:
            # Named alone, a variant that cannot run here is a usage error (exit 2): the list's
            # verdict is the record. A CUDA variant unavailable on the GPU machine is a problem.
            records[i]["small"] = {"status": "unavailable", "outcome": "not run",
                                   "note": "acclab list: not available on this machine"}
            continue
        jobs.append((i, "small", lambda w=w, n=name: check.acclab_run(w, n, "small", "small",
                                                                       args.timeout)[0]))
        if gpu and not args.no_seed:
            jobs.append((i, "seed", lambda w=w, n=name: check.acclab_run(
                w, n, "seed", "seed", args.seed_limit)[0]))
        if v.get("distributed"):
            # Several ranks sharing this machine's GPU(s), under mpirun, as users launch them.
            for ranks in RANKS:
                jobs.append((i, f"ranks{ranks}", lambda w=w, n=name, r=ranks: check.acclab_run(
                    w, n, "small", f"ranks{r}", args.timeout, mpirun_prefix(r))[0]))
        if gpu and not args.no_sanitizers:
            jobs.append((i, "memcheck", lambda w=w, n=name: check.sanitize("memcheck", w, n)))
            if v["backend"] == "cuda":
                for tool in ("racecheck", "synccheck"):
                    jobs.append((i, tool, lambda w=w, n=name, t=tool: check.sanitize(t, w, n)))

    solvers = []  # {command, variant, file: its record} of acclab iccg FILE and acclab apsp FILE
    solver_jobs = []
    for v in variants:
        w, name = v["workload"], v["variant"]
        if not v["available"]:
            continue
        if w == "iccg" and name in ICCG_FILE_VARIANTS:
            arguments = [os.path.join(DATA, ICCG_FILE)]
        elif w == "apsp" and not v.get("distributed"):
            keeps_paths = any(t["name"] == "paths" for t in v.get("tunings", []))
            arguments = ([os.path.join(DATA, APSP_FILE), "--semiring", "min-plus"]
                         + (["--paths"] if keeps_paths else []))
        else:
            continue
        solvers.append({"command": w, "variant": name})
        solver_jobs.append((len(solvers) - 1, 0, lambda w=w, n=name, a=arguments:
                            check.solver_run(w, n, a, args.timeout)))
        # apsp's answer is bitwise the serial loop's every time: the same run again, in other
        # processes beside the rest, catches what goes wrong in some runs only (an upload racing
        # the first kernel gave cuda_blocked a wrong digest in 10 of 96 runs, 12 at a time).
        if w == "apsp":
            solvers[-1]["repeats"] = [None] * (args.solver_repeats - 1)
            for k in range(1, args.solver_repeats):
                solver_jobs.append((len(solvers) - 1, k, lambda w=w, n=name, a=arguments, k=k:
                                    check.solver_run(w, n, a, args.timeout, repeat=k)))

    # The gate's core first, the seed runs (the least telling, often cut at --seed-limit) last:
    # under --budget what is left out is what matters least.
    priority = {"small": 0, "memcheck": 1, "racecheck": 2, "synccheck": 2, "seed": 3,
                **{f"ranks{r}": 1 for r in RANKS}}
    jobs.sort(key=lambda job: priority[job[1]])
    deadline = time.monotonic() + args.budget if args.budget > 0 else None
    skipped = []

    def within_budget(job, label):
        # A job that would start after the deadline is recorded, not run.
        if deadline is not None and time.monotonic() > deadline:
            skipped.append(label)
            return {"status": "not run", "outcome": "budget", "errors": None}
        return job()

    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        solver_futures = {pool.submit(within_budget, job, f"acclab {solvers[i]['command']} FILE "
                                      f"--variant {solvers[i]['variant']}"
                                      + (f" (repeat {k})" if k else "")): (i, k)
                          for i, k, job in solver_jobs}
        futures = {pool.submit(within_budget, job, f"{variants[i]['workload']}/"
                               f"{variants[i]['variant']} {field}"): (i, field)
                   for i, field, job in jobs}
        for done, future in enumerate(concurrent.futures.as_completed(futures), 1):
            i, field = futures[future]
            records[i][field] = future.result()
            r = records[i][field]
            print(f"[{done}/{len(jobs)}] {records[i]['workload']}/{records[i]['variant']} "
                  f"{field}: {r.get('status')} {r.get('outcome')}"
                  + (f" errors={r['errors']}" if "errors" in r else ""), flush=True)

        for future, (i, k) in solver_futures.items():
            r = future.result()
            if k:
                solvers[i]["repeats"][k - 1] = r
                continue
            solvers[i]["file"] = r
            print(f"acclab {solvers[i]['command']} FILE --variant {solvers[i]['variant']}: "
                  f"{r.get('status')} {r.get('outcome')}", flush=True)

    problems = [f"not run within --budget {args.budget:g} s: {label}" for label in skipped]
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
    for r in records:
        label = f"{r['workload']}/{r['variant']}"
        small = r["small"]
        if small.get("outcome") == "budget":
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
            if seed["outcome"] == "timeout":
                seed["status"] = f"slow (over {args.seed_limit:g} s, not run to the end)"
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

    build = info.get("build", {})
    complete = (not args.workloads and not args.no_sanitizers and not args.no_seed and
                not args.extra and not skipped)
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
        "summary": {"variants": len(records), "small": counts, "sanitizer_errors": sanitizer_errors,
                    "solvers": dict(sorted(collections.Counter(
                        x["file"].get("status") for x in solvers).items())),
                    "solver_repeats": dict(sorted(collections.Counter(
                        r.get("status") for x in solvers for r in x.get("repeats", [])).items())),
                    "racecheck_warnings": sum((r.get("racecheck") or {}).get("warnings") or 0
                                              for r in records)},
        "sanitizer_sets": SANITIZER_SETS,
        "seed_limit_s": None if args.no_seed else args.seed_limit,
        "seed_slow": sum(1 for r in records if str((r.get("seed") or {}).get("status", ""))
                         .startswith("slow")),
        "variants": records,
        "solvers": solvers,
    }
    # Whole or not at all: an interrupted check must not leave a truncated LATEST.json.
    latest = os.path.join(args.out, "LATEST.json")
    with open(latest + ".tmp", "w") as f:
        json.dump(document, f, indent=1)
        f.write("\n")
    os.replace(latest + ".tmp", latest)
    with tarfile.open(os.path.join(args.out, "runs.tgz"), "w:gz") as archive:
        archive.add(work, arcname="runs")
    shutil.rmtree(work, ignore_errors=True)

    print(f"gpu-check: commit {build.get('commit')}{' (dirty)' if build.get('dirty') else ''}, "
          f"{len(records)} variants: {counts}; sanitizer errors {sanitizer_errors}; "
          f"acclab iccg/apsp FILE: {document['summary']['solvers']}")
    for problem in problems:
        print(f"gpu-check: PROBLEM {problem}")
    return 0 if not problems else 1


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


if __name__ == "__main__":
    sys.exit(main())
