#!/usr/bin/env python3
"""The GPU gate: every registered variant of every workload, each in its own process, then
compute-sanitizer over the GPU variants, and acclab iccg/apsp FILE with every variant they take;
writes LATEST.json naming the commit it checked.

Each process gets its share of the machine (OMP_NUM_THREADS = cores // jobs, divided again by
the ranks under mpirun; OMP_WAIT_POLICY=passive) unless --no-share: the references every run
computes with OpenMP over all cores otherwise spin against each other, and runs that take
seconds alone take minutes.

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

# The ladder tables: a row's "seed_slow" says why its step cannot finish on the seed preset
# within the gate's time (it copies every pass, GCC runs it on one gang).
LADDERS = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                        "workloads"))

# The schema of the --slow-seeds record, kept beside LATEST.json.
SLOW_SEEDS_SCHEMA = "acclab.gpu-check.slow-seeds/1"

# Launch-bound seed runs at a time without MPS, where they take turns on the GPU.
LAUNCH_BOUND_JOBS_WITHOUT_MPS = 3

# The OpenMP settings each process gets under the per-job share.
SHARED_ENVIRONMENT = ("OMP_NUM_THREADS", "OMP_WAIT_POLICY")


def threads_per_job(cores, jobs, ranks=1):
    """OpenMP threads for each process of one job when `jobs` jobs share `cores` cores and the
    job is `ranks` processes (mpirun): never more threads than cores in all, never fewer than
    one."""
    return max(1, cores // jobs // ranks)


def ladder_rows(folder, field):
    """(path, workload, row) for every row of folder/*/ladder.json that has `field`."""
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return
    for name in names:
        path = os.path.join(folder, name, "ladder.json")
        if not os.path.isfile(path):
            continue
        with open(path) as f:
            table = json.load(f)
        for row in table.get("steps", []):
            if field in row:
                if row.get("backend") not in GPU_BACKENDS:
                    raise ValueError(f"{path}: {row.get('name')}: {field} on a "
                                     f"{row.get('backend')} step, which the gate never runs on "
                                     "the seed preset")
                yield path, table.get("workload", name), row


def seed_slow_reasons(folder):
    """{(workload, step): reason} from the "seed_slow" fields of folder/*/ladder.json. Raises
    ValueError for a reason that is not a non-empty string or sits on a row the gate never runs
    on the seed preset (not a GPU backend)."""
    reasons = {}
    for path, workload, row in ladder_rows(folder, "seed_slow"):
        reason = row["seed_slow"]
        if not isinstance(reason, str) or not reason.strip():
            raise ValueError(f"{path}: {row.get('name')}: seed_slow must be a reason (a "
                             f"non-empty string), not {reason!r}")
        reasons[(workload, row.get("name"))] = reason.strip()
    return reasons


def seed_limits(folder):
    """{(workload, step): seconds} from the "seed_limit_s" fields of folder/*/ladder.json: a
    launch-bound step (thousands of small launches a solve) that runs to the end on the seed
    preset. Its seed run waits for the launch-bound phase, after every other job, so that it does
    not wait for seven other processes' time slices at every launch. Raises ValueError for a
    limit that is not a positive number or sits on a row the gate never runs on the seed
    preset."""
    limits = {}
    for path, workload, row in ladder_rows(folder, "seed_limit_s"):
        limit = row["seed_limit_s"]
        if isinstance(limit, bool) or not isinstance(limit, (int, float)) or limit <= 0:
            raise ValueError(f"{path}: {row.get('name')}: seed_limit_s must be a positive "
                             f"number of seconds, not {limit!r}")
        limits[(workload, row.get("name"))] = float(limit)
    return limits


def mpirun_prefix(ranks, passed=()):
    """mpirun for `ranks` ranks on this machine (as root, as CI and the GPU machine run), handing
    the variables `passed` to every rank. --bind-to none: Open MPI binds each rank of a job of
    two or fewer to a core, counting from core 0 in every job, so that the gate's concurrent
    jobs would pile onto the same cores whatever their share says."""
    command = [shutil.which("mpirun") or "mpirun", "--allow-run-as-root", "--oversubscribe", "-q",
               "--bind-to", "none", "-np", str(ranks)]
    for name in passed:
        command += ["-x", name]
    return command


def fail_usage(message):
    print(f"gpu-check: {message}", file=sys.stderr)
    sys.exit(2)


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--acclab", default=os.environ.get("ACCLAB", "./bundle/acclab"),
                   help="the acclab binary (default $ACCLAB or ./bundle/acclab)")
    p.add_argument("--out", default="bench/results/gpu-check",
                   help="folder for LATEST.json and runs.tgz (default bench/results/gpu-check)")
    p.add_argument("--jobs", type=int, default=8,
                   help="processes at a time (one GPU serves several small runs), each given "
                        "cores // jobs OpenMP threads (default 8)")
    p.add_argument("--workloads", default="",
                   help="comma-separated workloads (default: all; a partial check is marked so)")
    p.add_argument("--seed-limit", type=float, default=90,
                   help="seconds a variant may take on the seed preset (GPU variants only); one "
                        "cut there is a problem unless its ladder row gives a seed_slow reason "
                        "(default 90)")
    p.add_argument("--seed-slow-limit", type=float, default=20,
                   help="seconds on the seed preset for a step whose ladder row gives a "
                        "seed_slow reason: it is not expected to finish, the run shows that it "
                        "starts at the seed's size; cut, it is recorded with its reason "
                        "(default 20)")
    p.add_argument("--no-seed", action="store_true", help="skip the seed-preset runs")
    p.add_argument("--seed-only", action="store_true",
                   help="only the seed-preset runs (to time the seed half alone; the report is "
                        "then not a gate result)")
    p.add_argument("--no-share", dest="share", action="store_false",
                   help="leave OMP_NUM_THREADS and OMP_WAIT_POLICY as they are for every process "
                        "(to measure acclab's own defaults under load; by default each process "
                        "gets cores // jobs threads, passive waiting)")
    p.add_argument("--ladders", default=LADDERS,
                   help="folder of the workloads' ladder.json, read for their seed_slow reasons "
                        "(default: workloads/ beside this script)")
    p.add_argument("--no-sanitizers", action="store_true",
                   help="skip compute-sanitizer (for a dry run on a machine without one; the "
                        "report then says it is not a gate result)")
    p.add_argument("--timeout", type=float, default=150,
                   help="seconds before any one process is killed as hung (default 150)")
    p.add_argument("--budget", type=float, default=0,
                   help="seconds for the whole check (0: no limit); jobs not started by then are "
                        "recorded as not run and the check as incomplete, so that a report is "
                        "written even when the GPU machine's time is short")
    p.add_argument("--deadline", type=float, default=0,
                   help="seconds after which processes still running are stopped and recorded "
                        "like runs the --budget left out, and the record is written (0: none): "
                        "for a machine that ends the check at a hard limit, which would leave "
                        "no record at all")
    p.add_argument("--solver-repeats", type=int, default=4,
                   help="runs of each acclab apsp FILE variant, each its own process, all of "
                        "which must give one digest: a race shows in some runs only (default 4)")
    p.add_argument("--launch-bound-jobs", type=int, default=None,
                   help="seed runs of launch-bound steps (rows with seed_limit_s) at a time in "
                        "the launch-bound phase, which starts once every other job is done "
                        f"(default: all at once under MPS, else {LAUNCH_BOUND_JOBS_WITHOUT_MPS})")
    p.add_argument("--mps", choices=("auto", "on", "off"), default="auto",
                   help="run the launch-bound phase under the CUDA Multi-Process Service, "
                        "started and stopped by the check: its processes then share one GPU "
                        "context instead of taking turns (auto: where nvidia-cuda-mps-control "
                        "exists; default auto)")
    p.add_argument("--slow-seeds", action="store_true",
                   help="only the seed runs of the steps whose rows give a seed_slow reason, "
                        "each to the end or --slow-seed-limit, into SLOW-SEEDS.json (not a gate "
                        "result; run it when such a step's files change)")
    p.add_argument("--slow-seed-limit", type=float, default=540,
                   help="seconds a --slow-seeds run may take (default 540)")
    p.add_argument("--extra", action="append", default=[],
                   help="an extra argument for every acclab run (testing: --extra=--corrupt-result)")
    args = p.parse_args()
    if args.jobs < 1:
        fail_usage(f"--jobs {args.jobs}: must be at least 1")
    if args.launch_bound_jobs is not None and args.launch_bound_jobs < 1:
        fail_usage(f"--launch-bound-jobs {args.launch_bound_jobs}: must be at least 1")
    if args.slow_seeds and (args.seed_only or args.no_seed):
        fail_usage("--slow-seeds runs seed runs alone: not with --seed-only or --no-seed")
    if args.solver_repeats < 1:
        fail_usage(f"--solver-repeats {args.solver_repeats}: must be at least 1")
    for option in ("seed_limit", "seed_slow_limit", "timeout", "slow_seed_limit"):
        if not getattr(args, option) > 0:
            fail_usage(f"--{option.replace('_', '-')} {getattr(args, option):g}: must be above 0")
    if args.mps == "on" and not Mps.find_control():
        fail_usage("--mps on: nvidia-cuda-mps-control not found (on the PATH or beside the "
                   "driver)")
    if args.seed_only and args.no_seed:
        fail_usage("--seed-only and --no-seed: nothing would run")
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


class Stopped(Exception):
    """A process ended because the check reached its --deadline, not its own limit."""

    def __init__(self, seconds):
        super().__init__(f"stopped at the deadline after {seconds:.0f} s")
        self.seconds = seconds


DEADLINE = None  # time.monotonic() at which running processes are stopped (--deadline)


def run_process(command, timeout, log_path, env=None):
    """Runs `command` (in environment `env`, None: this one), its stdout and stderr into
    log_path; returns (exit status, seconds, text). The exit status is negative for a signal,
    None for a timeout. Raises Stopped when the process was ended by the --deadline rather
    than by its own timeout."""
    start = time.monotonic()
    stopped = DEADLINE is not None and DEADLINE - start < timeout
    if stopped:
        timeout = max(DEADLINE - start, 0)
    with open(log_path, "w") as log:
        # A session of its own, so that a timeout ends the whole group: killing
        # compute-sanitizer alone would leave its acclab on the GPU beside the next jobs.
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL, start_new_session=True, env=env)
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
            if stopped:
                raise Stopped(time.monotonic() - start)
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
    def __init__(self, args, work, cores):
        self.args = args
        self.work = work  # folder of the per-run JSON reports and logs
        self.cores = cores  # the CPUs this process may run on, which its jobs share
        self.overlay = {}  # variables every process gets on top (the MPS pipe, in its phase)

    def environment(self, ranks=1):
        """The environment of a job's processes: this one's, and under the share each process's
        part of the cores (a job of `ranks` processes divides its part again) with passive
        waiting, so that OpenMP teams of parallel jobs do not spin on each other's cores."""
        if not self.args.share:
            return {**os.environ, **self.overlay} if self.overlay else None
        return {**os.environ, **self.overlay,
                "OMP_NUM_THREADS": str(threads_per_job(self.cores, self.args.jobs, ranks)),
                "OMP_WAIT_POLICY": "passive"}

    def acclab_run(self, workload, variant, preset, tag, timeout, prefix=(), sets=(), ranks=1):
        """One `acclab run` of one variant in its own process (`ranks` of them under the mpirun
        of `prefix`); the record of what happened."""
        name = f"{workload}.{variant}.{tag}"
        report = os.path.join(self.work, name + ".json")
        command = list(prefix) + [self.args.acclab, "run", workload, "--variant", variant,
                                  "--preset", preset, "--reps", "1", "--format", "json",
                                  "--out", report] + self.args.extra
        for setting in sets:
            command += ["--set", setting]
        log = os.path.join(self.work, name + ".log")
        status, seconds, text = run_process(command, timeout, log, self.environment(ranks))
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
        log = os.path.join(self.work, name + ".log")
        status, seconds, text = run_process(command, timeout, log, self.environment())
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


class Mps:
    """The CUDA Multi-Process Service for one phase of the check: its control daemon started
    with pipe and log folders of the check's own (never the machine's defaults, so that an MPS
    another user runs is left alone), quit at the end of the phase."""

    @staticmethod
    def find_control():
        """The MPS control program: on the PATH, or beside the driver where images put it."""
        return shutil.which("nvidia-cuda-mps-control") or next(
            (c for c in ("/usr/bin/nvidia-cuda-mps-control",
                         "/usr/local/nvidia/bin/nvidia-cuda-mps-control") if os.access(c, os.X_OK)),
            None)

    def __init__(self, work):
        self.control = Mps.find_control()
        self.env = {"CUDA_MPS_PIPE_DIRECTORY": os.path.join(work, "mps", "pipe"),
                    "CUDA_MPS_LOG_DIRECTORY": os.path.join(work, "mps", "log")}
        self.running = False

    def start(self):
        for folder in self.env.values():
            os.makedirs(folder, exist_ok=True)
        result = subprocess.run([self.control, "-d"], env={**os.environ, **self.env},
                                capture_output=True, text=True, timeout=60)
        self.running = result.returncode == 0
        if not self.running:
            print(f"gpu-check: nvidia-cuda-mps-control -d: exit {result.returncode} "
                  f"{last_line(result.stdout + result.stderr)}", file=sys.stderr)
        return self.running

    def stop(self):
        if self.running:
            subprocess.run([self.control], input="quit\n", env={**os.environ, **self.env},
                           capture_output=True, text=True, timeout=60)
            self.running = False


def main():
    args = parse_args()
    gate_start = time.monotonic()
    global DEADLINE
    DEADLINE = gate_start + args.deadline if args.deadline > 0 else None
    if not args.no_sanitizers and not args.seed_only and not sanitizer_binary():
        fail_usage("compute-sanitizer not found (on the PATH or in /usr/local/cuda/bin); "
                   "--no-sanitizers for a dry run")
    try:
        seed_slow = seed_slow_reasons(args.ladders)
        row_limits = seed_limits(args.ladders)
    except (OSError, ValueError) as e:
        fail_usage(f"--ladders {args.ladders}: {e}")
    cores = len(os.sched_getaffinity(0))
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

    check = Check(args, work, cores)
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
        if args.slow_seeds:
            # The steps cut at --seed-slow-limit in the gate, each at the seed's size to the end.
            if gpu and (w, name) in seed_slow:
                jobs.append((i, "seed", lambda w=w, n=name: check.acclab_run(
                    w, n, "seed", "seed", args.slow_seed_limit)[0]))
            records[i]["small"] = {"status": "not run", "outcome": "slow seeds only"}
            continue
        if gpu and not args.no_seed:
            limit = (args.seed_slow_limit if (w, name) in seed_slow
                     else row_limits.get((w, name), args.seed_limit))
            jobs.append((i, "seed", lambda w=w, n=name, t=limit: check.acclab_run(
                w, n, "seed", "seed", t)[0]))
        if args.seed_only:
            records[i]["small"] = {"status": "not run", "outcome": "seed only"}
            continue
        jobs.append((i, "small", lambda w=w, n=name: check.acclab_run(w, n, "small", "small",
                                                                       args.timeout)[0]))
        if v.get("distributed"):
            # Several ranks sharing this machine's GPU(s), under mpirun, as users launch them.
            for ranks in RANKS:
                jobs.append((i, f"ranks{ranks}", lambda w=w, n=name, r=ranks: check.acclab_run(
                    w, n, "small", f"ranks{r}", args.timeout,
                    mpirun_prefix(r, SHARED_ENVIRONMENT if args.share else ()), ranks=r)[0]))
        if gpu and not args.no_sanitizers:
            jobs.append((i, "memcheck", lambda w=w, n=name: check.sanitize("memcheck", w, n)))
            if v["backend"] == "cuda":
                for tool in ("racecheck", "synccheck"):
                    jobs.append((i, tool, lambda w=w, n=name, t=tool: check.sanitize(t, w, n)))

    solvers = []  # {command, variant, file: its record} of acclab iccg FILE and acclab apsp FILE
    solver_jobs = []
    for v in variants:
        w, name = v["workload"], v["variant"]
        if not v["available"] or args.seed_only or args.slow_seeds:
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

    # The gate's core first, the seed runs last: under --budget what is left out is what
    # matters least. Among the seed runs those expected to run to the end (the longer ones)
    # first, the steps cut by design at --seed-slow-limit after them.
    # The seed runs of launch-bound steps (rows with seed_limit_s) wait for a phase of their own
    # once every other job is done: beside seven other GPU processes each of their thousands of
    # launches waits for the others' time slices (a 50 s run took 150-300 s in the gate), and
    # --launch-bound-jobs of them at a time, under MPS where the machine has it, share the GPU
    # without taking turns.
    priority = {"small": 0, "memcheck": 1, "racecheck": 2, "synccheck": 2, "seed": 3,
                **{f"ranks{r}": 1 for r in RANKS}}

    def key_of(job):
        return (variants[job[0]]["workload"], variants[job[0]]["variant"])

    def is_long(job):
        return job[1] == "seed" and key_of(job) in row_limits and key_of(job) not in seed_slow

    launch_bound = sorted((job for job in jobs if is_long(job)),
                          key=lambda job: -row_limits[key_of(job)])
    jobs = sorted((job for job in jobs if not is_long(job)),
                  key=lambda job: (priority[job[1]],
                                   job[1] == "seed" and key_of(job) in seed_slow))
    deadline = time.monotonic() + args.budget if args.budget > 0 else None
    skipped = []
    stopped = []  # runs the --deadline ended
    spans = []  # (field, start, end): when each job ran, in seconds from the gate's start

    def within_budget(job, label, field=None):
        # A job that would start after the deadline is recorded, not run.
        if deadline is not None and time.monotonic() > deadline:
            skipped.append(label)
            return {"status": "not run", "outcome": "budget", "errors": None}
        if DEADLINE is not None and time.monotonic() >= DEADLINE:
            stopped.append(f"{label} (not started before the deadline)")
            return {"status": "not run", "outcome": "budget", "errors": None}
        start = time.monotonic() - gate_start
        try:
            return job()
        except Stopped as stop:
            stopped.append(f"{label} ({stop})")
            return {"status": "not run", "outcome": "budget", "errors": None,
                    "stopped_after_s": round(stop.seconds, 1)}
        finally:
            spans.append((field, start, time.monotonic() - gate_start))

    def seed_verdict(record, workload, variant):
        # A cut seed run is a problem unless its ladder row says why the step is slow there.
        if record.get("outcome") != "timeout":
            return
        reason = seed_slow.get((workload, variant))
        if args.slow_seeds:
            # Run to the end here: one cut at --slow-seed-limit is not verified, and says so.
            record["status"] = "not finished"
            record["seed_slow"] = reason
            record["limit_s"] = args.slow_seed_limit
        elif reason:
            record["status"] = "slow by design"
            record["seed_slow"] = reason
            record["limit_s"] = args.seed_slow_limit
        else:
            record["status"] = "cut without a reason"
            record["limit_s"] = row_limits.get((workload, variant), args.seed_limit)

    total = len(jobs) + len(launch_bound)
    done = 0

    def run_phase(phase_jobs, workers, phase_solver_jobs=()):
        """Runs one phase's jobs `workers` at a time; each record in its place as it ends."""
        nonlocal done
        with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
            solver_futures = {pool.submit(within_budget, job,
                                          f"acclab {solvers[i]['command']} FILE "
                                          f"--variant {solvers[i]['variant']}"
                                          + (f" (repeat {k})" if k else "")): (i, k)
                              for i, k, job in phase_solver_jobs}
            futures = {pool.submit(within_budget, job, f"{variants[i]['workload']}/"
                                   f"{variants[i]['variant']} {field}", field): (i, field)
                       for i, field, job in phase_jobs}
            for future in concurrent.futures.as_completed(futures):
                done += 1
                i, field = futures[future]
                records[i][field] = future.result()
                r = records[i][field]
                if field == "seed":
                    seed_verdict(r, records[i]["workload"], records[i]["variant"])
                print(f"[{done}/{total}] {records[i]['workload']}/{records[i]['variant']} "
                      f"{field}: {r.get('status')} {r.get('outcome')}"
                      + (f" errors={r['errors']}" if "errors" in r else "")
                      + (f" after {r['limit_s']:g} s: {r['seed_slow']}" if r.get("seed_slow")
                         else "")
                      + (f" (over {r['limit_s']:g} s, and its ladder row gives no seed_slow "
                         "reason)" if r.get("status") == "cut without a reason" else "")
                      + (f" {r.get('seconds')} s" if field == "seed" else ""), flush=True)

            for future, (i, k) in solver_futures.items():
                r = future.result()
                if k:
                    solvers[i]["repeats"][k - 1] = r
                    continue
                solvers[i]["file"] = r
                print(f"acclab {solvers[i]['command']} FILE --variant {solvers[i]['variant']}: "
                      f"{r.get('status')} {r.get('outcome')}", flush=True)

    phases = {}
    problems_before = []  # of the launch-bound phase's own set-up
    began = time.monotonic()
    run_phase(jobs, args.jobs, solver_jobs)
    phases["main"] = {"jobs": args.jobs, "runs": len(jobs) + len(solver_jobs),
                      "wall_s": round(time.monotonic() - began, 1)}
    if launch_bound:
        mps = Mps(work)
        use_mps = args.mps != "off" and mps.control is not None and mps.start()
        mps_trial = None
        if use_mps:
            # One small run of each launch-bound step's backend under MPS first: where a client
            # cannot use the service (a container without its permissions, a driver that
            # refuses), the phase runs without it rather than fail every run.
            trial = {}  # one launch-bound step of each backend
            for i, _, _ in launch_bound:
                trial.setdefault(variants[i]["backend"], i)
            check.overlay = mps.env
            try:
                mps_trial = {f"{variants[i]['workload']}/{variants[i]['variant']}":
                             check.acclab_run(variants[i]["workload"], variants[i]["variant"],
                                              "small", "mps-trial", args.timeout)[0]
                             for i in trial.values()}
            except Stopped as stop:
                mps_trial = {"trial": {"status": f"not finished: {stop}"}}
            check.overlay = {}
            if any(r.get("status") != "verified" for r in mps_trial.values()):
                print(f"gpu-check: MPS trial failed, the launch-bound phase runs without it: "
                      f"{mps_trial}", flush=True)
                mps.stop()
                use_mps = False
        if args.mps == "on" and not use_mps:
            problems_before.append("--mps on: the MPS control daemon did not start or its "
                                   "trial runs failed")
        workers = args.launch_bound_jobs or (len(launch_bound) if use_mps
                                              else LAUNCH_BOUND_JOBS_WITHOUT_MPS)
        began = time.monotonic()
        try:
            check.overlay = mps.env if use_mps else {}
            run_phase(launch_bound, workers)
        finally:
            check.overlay = {}
            mps.stop()
        phases["launch_bound"] = {
            "jobs": workers, "mps": use_mps, "mps_trial": mps_trial, "runs": len(launch_bound),
            "wall_s": round(time.monotonic() - began, 1),
            "runs_s": {f"{variants[i]['workload']}/{variants[i]['variant']}":
                       records[i][field].get("seconds") for i, field, _ in launch_bound}}

    problems = problems_before + [f"not run within --budget {args.budget:g} s: {label}"
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

    build = info.get("build", {})
    complete = (not args.workloads and not args.no_sanitizers and not args.no_seed and
                not args.seed_only and not args.slow_seeds and not args.extra and not skipped
                and not stopped)
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
    seed_runs = {f"{r['workload']}/{r['variant']}": r["seed"] for r in records
                 if r.get("seed") and r["seed"].get("outcome") != "budget"}
    seed_spans = [(start, end) for field, start, end in spans if field == "seed"]
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
    # Whole or not at all: an interrupted check must not leave a truncated LATEST.json.
    latest = os.path.join(args.out, "SLOW-SEEDS.json" if args.slow_seeds else "LATEST.json")
    with open(latest + ".tmp", "w") as f:
        json.dump(document, f, indent=1)
        f.write("\n")
    os.replace(latest + ".tmp", latest)
    runs = "slow-seeds-runs.tgz" if args.slow_seeds else "runs.tgz"
    with tarfile.open(os.path.join(args.out, runs), "w:gz") as archive:
        archive.add(work, arcname="runs")
    shutil.rmtree(work, ignore_errors=True)

    print(f"gpu-check: commit {build.get('commit')}{' (dirty)' if build.get('dirty') else ''}, "
          f"{len(records)} variants: {counts}; sanitizer errors {sanitizer_errors}; "
          f"acclab iccg/apsp FILE: {document['summary']['solvers']}")
    print("gpu-check: " + (f"each process OMP_NUM_THREADS={document['threads_per_job']} "
                           f"(of {cores} cores, {args.jobs} jobs), OMP_WAIT_POLICY=passive"
                           if args.share else
                           f"--no-share: the environment as it was ({cores} cores, {args.jobs} "
                           f"jobs, {document['inherited_environment']})")
          + f"; seed: {seed_summary['verified']} of {seed_summary['runs']} verified, "
          f"{len(seed_summary['cut_by_design'])} cut by design, "
          f"{len(seed_cut_without_reason)} cut without a reason, seed half "
          f"{seed_summary['wall_s']} s; the whole check {document['wall_s']} s; phases "
          + ", ".join(f"{name} {p['wall_s']} s ({p['jobs']} at a time"
                      + (", MPS" if p.get("mps") else "") + ")" for name, p in phases.items()))
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
