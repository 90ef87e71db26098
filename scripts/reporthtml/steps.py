"""The steps of the page: each result of each file, grouped by workload, with the speedups the
report works out where a file records none."""
import json
import statistics

from run_file import number, precision_of, text, times_s


def derive_speedups(files):
    """vs 1st / vs prev for the results of files that record none (acclab run fills no
    speedups; acclab ladder does): as the ladder computes them, within each family in the
    file's order, over verified steps that computed the whole problem, the first step of a
    family 1x. Marked as worked out by the report: no interval, no noise test."""
    for file in files:
        results = [r for r in file["document"]["results"] if isinstance(r, dict)]
        if any("speedup_vs_first" in r for r in results):
            continue
        first, previous = {}, {}
        for r in results:
            family = r.get("family")
            times = times_s(r)
            outputs = r.get("outputs") if isinstance(r.get("outputs"), dict) else {}
            fraction = number(outputs.get("computed_fraction"))
            if (not isinstance(family, str) or not family or r.get("status") != "verified"
                    or not times or (fraction is not None and fraction < 1)):
                continue
            median = statistics.median(times)
            if median <= 0:
                continue
            key = (r.get("workload"), family)
            if key in first:
                r["speedup_vs_first"] = first[key][1] / median
                r["speedup_vs_previous"] = previous[key][1] / median
                r["previous_variant"] = previous[key][0]
            else:
                first[key] = (r.get("variant"), median)
                r["speedup_vs_first"] = 1.0
            r["speedups_from_report"] = first[key][0]
            previous[key] = (r.get("variant"), median)


class Step:
    """One result of one file, with what the charts and the tables need."""

    def __init__(self, file, result):
        self.run = file["label"]
        self.run_index = file["index"]
        self.result = result
        self.workload = result["workload"]
        self.variant = result["variant"]
        self.status = result["status"]
        self.params = result.get("params") if isinstance(result.get("params"), dict) else {}
        times = times_s(result)
        self.times = times
        self.median = statistics.median(times) if times else None
        self.min = min(times) if times else None
        self.max = max(times) if times else None
        self.gflops = number(result.get("gflops"))
        self.gbytes = number(result.get("gbytes_per_s"))
        self.limit_fraction = number(result.get("limit_fraction"))
        self.place = result.get("place") if result.get("place") in ("gpu", "host") else "host"
        self.precision = precision_of(result)
        self.label = self.variant  # made unique within its workload by label_steps()
        self.number = 0  # its row in the workload's table, from 1

    @property
    def timed(self):
        return self.median is not None and self.status in ("verified", "failed")

    @property
    def intensity(self):
        """Flops per byte moved, as the step's performance model counts them (GFLOP/s over
        GB/s of the same runs); None where the model moves no bytes or the step has no rate."""
        if self.gflops is None or self.gbytes is None or self.gbytes <= 0:
            return None
        return self.gflops / self.gbytes

    def notes(self):
        """What the result says about itself besides its numbers, one sentence each."""
        r = self.result
        notes = []
        for key, prefix in (("note", ""), ("error", "error: ")):
            if isinstance(r.get(key), str) and r[key]:
                notes.append(prefix + r[key])
        tuning = r.get("tuning")
        ran = self.status != "unavailable"
        if isinstance(tuning, str) and tuning not in ("", "default") and ran:
            notes.append(f"tuning {tuning}")
        mpi = r.get("mpi")
        if isinstance(mpi, dict) and mpi.get("ranks") is not None:
            notes.append(f"{text(mpi.get('ranks'))} MPI ranks, grid {text(mpi.get('proc_grid'))}")
        profile = r.get("profile")
        if isinstance(profile, dict) and isinstance(profile.get("notes"), list):
            notes += [f"profile: {text(n)}" for n in profile["notes"]]
        # The compiler's notes, where a result carries them (acclab explain shows them otherwise).
        for key in ("explain", "compiler_notes"):
            value = r.get(key)
            if isinstance(value, list):
                notes += [f"compiler: {text(n)}" for n in value]
            elif isinstance(value, str) and value:
                notes.append(f"compiler: {value}")
        return notes


def label_steps(steps):
    """Each step's label in the charts: its variant, with the parameters that tell apart the
    steps of one variant that ran with several (--devices 1,2, --set), and the run's letter
    where there are several runs."""
    several_runs = len({s.run for s in steps}) > 1
    by_variant = {}
    for s in steps:
        by_variant.setdefault(s.variant, []).append(s)
    for variant, same in by_variant.items():
        keys = sorted({k for s in same for k in s.params})
        differing = [k for k in keys if len({text(s.params.get(k)) for s in same}) > 1]
        for s in same:
            extra = " ".join(f"{k}={text(s.params.get(k))}" for k in differing)
            s.label = variant + (f" [{extra}]" if extra else "")
    for s in steps:
        if several_runs:
            s.label = f"{s.run}: {s.label}"


def workloads_of(files):
    """{workload: [Step]} in the order the workloads first appear; within one, the steps of
    the same variant and parameters of every run side by side (so that the ladder chart shows
    the runs of one step together), in the order of the first run that has them."""
    order, groups = [], {}
    for file in files:
        for result in file["document"]["results"]:
            step = Step(file, result)
            key = json.dumps([step.variant, step.params], sort_keys=True)
            if step.workload not in groups:
                order.append(step.workload)
                groups[step.workload] = {}
            groups[step.workload].setdefault(key, []).append(step)
    workloads = {}
    for name in order:
        steps = [s for same in groups[name].values() for s in same]
        label_steps(steps)
        for i, s in enumerate(steps):
            s.number = i + 1
        workloads[name] = steps
    return workloads
