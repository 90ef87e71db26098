"""The acclab.run/1 file read back in Python: the document src/core/report.cpp writes (acclab's
own reader is src/core/run_file.cpp, which also checks the files acclab report hands to
report-html.py). The one place the scripts know the schema's names: report-html.py's modules,
plot-ladder.py, plot-directive-models.py and results-table.py read a run's fields through it."""

import json
import math

SCHEMA = "acclab.run/1"


def load(path, fail):
    """An `acclab run --format json` report's document and its results list; `fail(message)`
    reports a file that cannot be read, is not JSON, is not such a report or holds no result
    (and does not return)."""
    try:
        with open(path, encoding="utf-8") as f:
            document = json.load(f)
    except OSError as e:
        fail(f"{path}: cannot read ({e.strerror})")
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        fail(f"{path}: not JSON ({e})")
    if not isinstance(document, dict) or document.get("schema") != SCHEMA:
        fail(f"{path}: not an acclab report (expected \"schema\": \"{SCHEMA}\")")
    results = document.get("results")
    if not isinstance(results, list) or not results:
        fail(f"{path}: no results")
    return document, results


# --- one result -----------------------------------------------------------------------------------

def number(value):
    """A finite number, or None for anything else (null, text, true/false, NaN)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def text(value):
    """A field as text: itself where it is a string, "" for null, else its JSON."""
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


def median_s(result):
    """The median of the result's timed runs, time_s.median, as a float; KeyError, TypeError or
    ValueError where the result has none (an unavailable step holds null)."""
    return float(result["time_s"]["median"])


def times_s(result):
    """Every timed run's seconds (times_s), the values that are no finite number left out."""
    return [t for t in (number(t) for t in result.get("times_s") or []) if t is not None]


# Files written before results named their precision: the workloads whose arithmetic is float.
FLOAT_WORKLOADS = {"vector", "jacobi2d", "diffusion3d", "apsp"}


def precision_of(result):
    """fp64 or fp32: what the result says, else what its workload computes in."""
    if result.get("precision") in ("fp64", "fp32"):
        return result["precision"]
    return "fp32" if result.get("workload") in FLOAT_WORKLOADS else "fp64"


# --- the machine the file ran on ------------------------------------------------------------------

def devices_of(document):
    """The GPUs the file records (devices), each a dict."""
    return [d for d in document.get("devices") or [] if isinstance(d, dict)]


def peak_rates(recorded):
    """{kind: GFLOP/s or None, "origin": text} of a peak_gflops object (src/core/peak_rates.cpp's
    PeakRates::json: fp64, fp32, fp64_tensor, origin), or None where it holds no FP64 figure."""
    if not isinstance(recorded, dict) or number(recorded.get("fp64")) is None:
        return None
    peaks = {k: number(recorded.get(k)) for k in ("fp64", "fp64_tensor", "fp32")}
    peaks["origin"] = text(recorded.get("origin"))
    return peaks


def peaks_of(document):
    """{"host": peak_rates(), "gpu": peak_rates()} of host.peak_gflops and the first device's,
    for the places that record a peak. Files written before peaks were recorded have none
    (acclab report hands the page a known card's beside such a file: gpu_peak_gflops)."""
    peaks = {}
    host = document.get("host")
    devices = devices_of(document)
    for place, holder in (("host", host), ("gpu", devices[0] if devices else None)):
        rates = peak_rates(holder.get("peak_gflops")) if isinstance(holder, dict) else None
        if rates is not None:
            peaks[place] = rates
    return peaks


def missing_peaks(document):
    """Why the file records no peak for its host or GPU, where it says so (peak_gflops.missing),
    as "host: why" or "GPU NAME: why"."""
    host = document.get("host") if isinstance(document.get("host"), dict) else {}
    holders = [("host", host)] + [(f"GPU {text(d.get('name'))}", d) for d in devices_of(document)]
    reasons = []
    for name, holder in holders:
        peaks = holder.get("peak_gflops")
        if isinstance(peaks, dict) and isinstance(peaks.get("missing"), str):
            reasons.append(f"{name}: {peaks['missing']}")
    return reasons


def bandwidth_limits(document):
    """The bandwidths the run measured (limits.*_gbytes_per_s), as (name, GB/s) in the file's
    order, the name without its suffix and with spaces ("device copy", "host")."""
    limits = document.get("limits")
    if not isinstance(limits, dict):
        return []
    found = []
    for key, value in limits.items():
        value = number(value)
        if value is None or value <= 0 or not key.endswith("_gbytes_per_s"):
            continue
        found.append((key[: -len("_gbytes_per_s")].replace("_", " "), value))
    return found
