"""The gate's constants, its options, and what it reads of the workloads' ladder tables."""
import argparse
import json
import os
import shutil
import sys

from gpucheck.processes import Mps

# The repository this script belongs to.
ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

GPU_BACKENDS = ("openacc", "omptarget", "cuda")

# The distributed (MPI) steps also run on this many ranks, sharing the machine's GPU(s).
RANKS = (2, 4)

# The commands users run on their own files, with every variant they take, on small files of
# tests/data: the ladder runs above never pass through these commands' readers, defaults and
# checks. acclab iccg on 494_bus (b = A 1: the error from the ones is known), acclab apsp on
# polbooks (min-plus; the successors followed and re-summed where the variant keeps them). Every
# variant's matrix digest must be the same: they all compute the serial loop's result bit for bit.
DATA = os.path.join(ROOT, "tests", "data")
ICCG_FILE_VARIANTS = ("original", "optimized", "cuda", "cusparse")
ICCG_FILE = "matrices/494_bus.mtx"
APSP_FILE = "graphs/polbooks.mtx"

# The ladder tables: a row's "seed_slow" says why its step cannot finish on the seed preset
# within the gate's time (it copies every pass, GCC runs it on one gang).
LADDERS = os.path.join(ROOT, "workloads")

# The schema of the --slow-seeds record, kept beside LATEST.json.
SLOW_SEEDS_SCHEMA = "acclab.gpu-check.slow-seeds/1"

# Launch-bound seed runs at a time without MPS, where they take turns on the GPU.
LAUNCH_BOUND_JOBS_WITHOUT_MPS = 3

# The OpenMP settings each process gets under the per-job share.
SHARED_ENVIRONMENT = ("OMP_NUM_THREADS", "OMP_WAIT_POLICY")


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


def parse_args(description):
    p = argparse.ArgumentParser(description=description)
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

