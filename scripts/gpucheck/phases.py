"""The phases that run the gate's jobs, several at a time, each record in its place as it ends:
the main phase, then the launch-bound seed runs (under MPS where the machine has it)."""
import concurrent.futures
import time

from gpucheck import processes
from gpucheck.options import LAUNCH_BOUND_JOBS_WITHOUT_MPS
from gpucheck.processes import Mps, Stopped


class Runner:
    """Runs jobs within the check's --budget (no job starts after it) and --deadline (running
    processes are stopped at it), and fills in the variants' and solvers' records."""

    def __init__(self, args, gate_start, variants, records, solvers, seed_slow, row_limits,
                 total):
        self.args = args
        self.gate_start = gate_start
        self.variants = variants
        self.records = records
        self.solvers = solvers
        self.seed_slow = seed_slow
        self.row_limits = row_limits
        self.budget_end = time.monotonic() + args.budget if args.budget > 0 else None
        self.skipped = []  # labels of the jobs the --budget left out
        self.stopped = []  # runs the --deadline ended
        self.spans = []  # (field, start, end): when each job ran, in seconds from the gate's start
        self.total = total
        self.done = 0

    def within_budget(self, job, label, field=None):
        # A job that would start after the deadline is recorded, not run.
        if self.budget_end is not None and time.monotonic() > self.budget_end:
            self.skipped.append(label)
            return {"status": "not run", "outcome": "budget", "errors": None}
        if processes.DEADLINE is not None and time.monotonic() >= processes.DEADLINE:
            self.stopped.append(f"{label} (not started before the deadline)")
            return {"status": "not run", "outcome": "budget", "errors": None}
        start = time.monotonic() - self.gate_start
        try:
            return job()
        except Stopped as stop:
            self.stopped.append(f"{label} ({stop})")
            return {"status": "not run", "outcome": "budget", "errors": None,
                    "stopped_after_s": round(stop.seconds, 1)}
        finally:
            self.spans.append((field, start, time.monotonic() - self.gate_start))

    def seed_verdict(self, record, workload, variant):
        # A cut seed run is a problem unless its ladder row says why the step is slow there.
        if record.get("outcome") != "timeout":
            return
        reason = self.seed_slow.get((workload, variant))
        if self.args.slow_seeds:
            # Run to the end here: one cut at --slow-seed-limit is not verified, and says so.
            record["status"] = "not finished"
            record["seed_slow"] = reason
            record["limit_s"] = self.args.slow_seed_limit
        elif reason:
            record["status"] = "slow by design"
            record["seed_slow"] = reason
            record["limit_s"] = self.args.seed_slow_limit
        else:
            record["status"] = "cut without a reason"
            record["limit_s"] = self.row_limits.get((workload, variant), self.args.seed_limit)

    def progress_line(self, i, field):
        r = self.records[i][field]
        return (f"[{self.done}/{self.total}] {self.records[i]['workload']}/"
                f"{self.records[i]['variant']} {field}: {r.get('status')} {r.get('outcome')}"
                + (f" errors={r['errors']}" if "errors" in r else "")
                + (f" after {r['limit_s']:g} s: {r['seed_slow']}" if r.get("seed_slow") else "")
                + (f" (over {r['limit_s']:g} s, and its ladder row gives no seed_slow reason)"
                   if r.get("status") == "cut without a reason" else "")
                + (f" {r.get('seconds')} s" if field == "seed" else ""))

    def run_phase(self, phase_jobs, workers, phase_solver_jobs=()):
        """Runs one phase's jobs `workers` at a time; each record in its place as it ends."""
        with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
            solver_futures = {pool.submit(self.within_budget, job,
                                          f"acclab {self.solvers[i]['command']} FILE "
                                          f"--variant {self.solvers[i]['variant']}"
                                          + (f" (repeat {k})" if k else "")): (i, k)
                              for i, k, job in phase_solver_jobs}
            futures = {pool.submit(self.within_budget, job,
                                   f"{self.variants[i]['workload']}/"
                                   f"{self.variants[i]['variant']} {field}", field): (i, field)
                       for i, field, job in phase_jobs}
            for future in concurrent.futures.as_completed(futures):
                self.done += 1
                i, field = futures[future]
                self.records[i][field] = future.result()
                if field == "seed":
                    self.seed_verdict(self.records[i][field], self.records[i]["workload"],
                                      self.records[i]["variant"])
                print(self.progress_line(i, field), flush=True)

            for future, (i, k) in solver_futures.items():
                r = future.result()
                if k:
                    self.solvers[i]["repeats"][k - 1] = r
                    continue
                self.solvers[i]["file"] = r
                print(f"acclab {self.solvers[i]['command']} FILE --variant "
                      f"{self.solvers[i]['variant']}: {r.get('status')} {r.get('outcome')}",
                      flush=True)

    def run_launch_bound(self, check, launch_bound, work):
        """The launch-bound phase: its jobs under MPS where the service starts and one small run
        of each of its backends verifies under it, else without. Returns (the phase's record,
        problems of its set-up)."""
        problems = []
        mps = Mps(work)
        use_mps = self.args.mps != "off" and mps.control is not None and mps.start()
        mps_trial = None
        if use_mps:
            mps_trial = self.mps_trial(check, launch_bound, mps)
            if any(r.get("status") != "verified" for r in mps_trial.values()):
                print(f"gpu-check: MPS trial failed, the launch-bound phase runs without it: "
                      f"{mps_trial}", flush=True)
                mps.stop()
                use_mps = False
        if self.args.mps == "on" and not use_mps:
            problems.append("--mps on: the MPS control daemon did not start or its trial runs "
                            "failed")
        workers = self.args.launch_bound_jobs or (len(launch_bound) if use_mps
                                                  else LAUNCH_BOUND_JOBS_WITHOUT_MPS)
        began = time.monotonic()
        try:
            check.overlay = mps.env if use_mps else {}
            self.run_phase(launch_bound, workers)
        finally:
            check.overlay = {}
            mps.stop()
        phase = {"jobs": workers, "mps": use_mps, "mps_trial": mps_trial,
                 "runs": len(launch_bound), "wall_s": round(time.monotonic() - began, 1),
                 "runs_s": {f"{self.variants[i]['workload']}/{self.variants[i]['variant']}":
                            self.records[i][field].get("seconds")
                            for i, field, _ in launch_bound}}
        return phase, problems

    def mps_trial(self, check, launch_bound, mps):
        """One small run of each launch-bound step's backend under MPS: where a client cannot use
        the service (a container without its permissions, a driver that refuses), the phase runs
        without it rather than fail every run."""
        trial = {}  # one launch-bound step of each backend
        for i, _, _ in launch_bound:
            trial.setdefault(self.variants[i]["backend"], i)
        check.overlay = mps.env
        try:
            return {f"{self.variants[i]['workload']}/{self.variants[i]['variant']}":
                    check.acclab_run(self.variants[i]["workload"], self.variants[i]["variant"],
                                     "small", "mps-trial", self.args.timeout)[0]
                    for i in trial.values()}
        except Stopped as stop:
            return {"trial": {"status": f"not finished: {stop}"}}
        finally:
            check.overlay = {}
