"""The processes the gate runs: one acclab run, solver or sanitizer run each, under a timeout and
the check's --deadline, and the MPS daemon of the launch-bound phase."""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

# The sanitizers slow GPU code 10 to 100 times. Where the small preset then takes minutes (a
# step that runs its kernels on one gang, one that copies every step), the sanitizer runs take
# fewer steps of the same code paths.
SANITIZER_SETS = {
    "vector": ["nx=512", "ny=512", "nt=2"],
    "diffusion3d": ["end_time=0.02"],
}


def threads_per_job(cores, jobs, ranks=1):
    """OpenMP threads for each process of one job when `jobs` jobs share `cores` cores and the
    job is `ranks` processes (mpirun): never more threads than cores in all, never fewer than
    one."""
    return max(1, cores // jobs // ranks)


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

