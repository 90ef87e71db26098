"""The gate's jobs: for every variant, its runs (small, seed, on several ranks, under each
sanitizer) with a record to fill; the solvers on users' files; and the order they run in."""
import os

from gpucheck.options import (APSP_FILE, DATA, GPU_BACKENDS, ICCG_FILE, ICCG_FILE_VARIANTS, RANKS,
                              SHARED_ENVIRONMENT, mpirun_prefix)

# The order of the main phase: the gate's core first, the seed runs last, so that under --budget
# what is left out is what matters least.
PRIORITY = {"small": 0, "memcheck": 1, "racecheck": 2, "synccheck": 2, "seed": 3,
            **{f"ranks{r}": 1 for r in RANKS}}


def variant_jobs(args, variants, check, seed_slow, row_limits):
    """(jobs, records): a job (variant index, field, callable) for each run of each variant, and a
    record for each variant, its runs to be filled in under their field ("small", "seed", ...).
    A variant that cannot run here gets its record now."""
    jobs = []
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
    return jobs, records


def solver_jobs(args, variants, check):
    """(solvers, jobs): a record {command, variant} for each variant of acclab iccg FILE and
    acclab apsp FILE, and a job (solver index, repeat, callable) for each of its runs."""
    solvers = []
    jobs = []
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
        jobs.append((len(solvers) - 1, 0, lambda w=w, n=name, a=arguments:
                     check.solver_run(w, n, a, args.timeout)))
        # apsp's answer is bitwise the serial loop's every time: the same run again, in other
        # processes beside the rest, catches what goes wrong in some runs only (an upload racing
        # the first kernel gave cuda_blocked a wrong digest in 10 of 96 runs, 12 at a time).
        if w == "apsp":
            solvers[-1]["repeats"] = [None] * (args.solver_repeats - 1)
            for k in range(1, args.solver_repeats):
                jobs.append((len(solvers) - 1, k, lambda w=w, n=name, a=arguments, k=k:
                             check.solver_run(w, n, a, args.timeout, repeat=k)))
    return solvers, jobs


def in_phases(jobs, variants, seed_slow, row_limits):
    """(main, launch_bound): the jobs of the main phase in the order they start, and the seed
    runs of the launch-bound steps (rows with seed_limit_s), the longest first.

    The launch-bound seed runs wait for a phase of their own once every other job is done:
    beside seven other GPU processes each of their thousands of launches waits for the others'
    time slices (a 50 s run took 150-300 s in the gate), and --launch-bound-jobs of them at a
    time, under MPS where the machine has it, share the GPU without taking turns. Among the
    main phase's seed runs, those expected to run to the end (the longer ones) come first, the
    steps cut by design at --seed-slow-limit after them."""

    def key_of(job):
        return (variants[job[0]]["workload"], variants[job[0]]["variant"])

    def is_long(job):
        return job[1] == "seed" and key_of(job) in row_limits and key_of(job) not in seed_slow

    launch_bound = sorted((job for job in jobs if is_long(job)),
                          key=lambda job: -row_limits[key_of(job)])
    main = sorted((job for job in jobs if not is_long(job)),
                  key=lambda job: (PRIORITY[job[1]],
                                   job[1] == "seed" and key_of(job) in seed_slow))
    return main, launch_bound
