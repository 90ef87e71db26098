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
import datetime
import json
import os
import subprocess
import sys
import tempfile
import time

# The gate's parts live in gpucheck/ beside this script, which tests/gpu_gate.py also loads by
# its path (for gated_changes).
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from gpucheck import plan, processes  # noqa: E402
from gpucheck.options import LADDERS, fail_usage, parse_args, seed_limits, seed_slow_reasons  # noqa: E402,F401
from gpucheck.phases import Runner  # noqa: E402
from gpucheck.processes import Check, sanitizer_binary, threads_per_job  # noqa: E402,F401
from gpucheck.record import (commit_problems, gated_changes, is_complete,  # noqa: E402,F401
                             make_document, print_summary, run_problems, write_record)


def variants_to_check(args):
    """(info, variants): acclab info (its host bandwidth measured here once, before the pool:
    processes started together would each measure it at the same time, against each other)
    and the variants acclab list gives, of --workloads where given."""
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
    return info, variants


def main():
    args = parse_args(__doc__.splitlines()[0])
    gate_start = time.monotonic()
    processes.DEADLINE = gate_start + args.deadline if args.deadline > 0 else None
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
    # One host bandwidth probe for the whole check, not one per process; and each serial
    # reference computed once for every process that verifies against it (the apsp and iccg seed
    # references alone took about 600 of the main phase's 2 664 job-seconds when each process
    # computed its own).
    os.environ.setdefault("ACCLAB_CACHE_DIR", os.path.join(work, "cache"))
    os.environ.setdefault("ACCLAB_REFERENCE_DIR", os.path.join(work, "references"))
    started = datetime.datetime.now(datetime.timezone.utc)
    info, variants = variants_to_check(args)

    check = Check(args, work, cores)
    jobs, records = plan.variant_jobs(args, variants, check, seed_slow, row_limits)
    solvers, solver_jobs = plan.solver_jobs(args, variants, check)
    jobs, launch_bound = plan.in_phases(jobs, variants, seed_slow, row_limits)
    runner = Runner(args, gate_start, variants, records, solvers, seed_slow, row_limits,
                    total=len(jobs) + len(launch_bound))

    phases = {}
    began = time.monotonic()
    runner.run_phase(jobs, args.jobs, solver_jobs)
    phases["main"] = {"jobs": args.jobs, "runs": len(jobs) + len(solver_jobs),
                      "wall_s": round(time.monotonic() - began, 1)}
    problems = []  # of the launch-bound phase's own set-up first
    if launch_bound:
        phases["launch_bound"], problems = runner.run_launch_bound(check, launch_bound, work)

    found, seed_cut_without_reason = run_problems(args, records, solvers, info, runner.skipped,
                                                  runner.stopped)
    complete = is_complete(args, runner.skipped, runner.stopped)
    trees, found_in_build = commit_problems(args, info, records, complete)
    problems += found + found_in_build
    document = make_document(args, info, records, solvers, problems, phases, runner,
                             trees=trees, complete=complete,
                             seed_cut_without_reason=seed_cut_without_reason,
                             seed_slow=seed_slow, row_limits=row_limits, started=started,
                             gate_start=gate_start, cores=cores)
    write_record(args, document, work)
    print_summary(args, document)
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main())
