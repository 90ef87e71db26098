#!/usr/bin/python3
"""The HTML page of `acclab report` and of `acclab run/ladder --report`: one self-contained file
whose charts matplotlib draws as inline SVG, with nothing loaded from elsewhere (no script, no
style sheet, no font, no image by address), so that it opens offline and in a mail attachment.

usage: report-html.py < INPUT.json > PAGE.html   (acclab runs it; users run acclab report)
       report-html.py --check                     exit 0 where matplotlib can be imported

acclab reads and checks the result files, compares them with acclab compare's statistics, and
writes on this script's stdin one JSON document:
  {"files": [{"label": "A", "path": "...", "document": <acclab.run/1>}, ...],
   "comparison": <acclab.compare/1> or null, "not_compared": "why there is no comparison",
   "command_line": [...]}
The page goes to stdout; acclab writes it to its output whole or not at all. A failure here is
one line on stderr and exit status 1.
"""
import html
import io
import json
import math
import re
import shlex
import statistics
import sys


def fail(message):
    print(f"report-html: {message}", file=sys.stderr)
    sys.exit(1)


# --- values as the files hold them: checked by acclab for what compare reads, not the rest -----

def number(value):
    """A finite number, or None for anything else (null, text, true/false, NaN)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def text(value):
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


def esc(value):
    return html.escape(text(value), quote=True)


def seconds_text(s):
    """As acclab's tables print times: three significant digits in s, ms, µs or ns."""
    if s is None:
        return "-"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if s >= scale:
            return f"{s / scale:.3g} {unit}"
    return f"{s / 1e-9:.3g} ns"


def fixed(value, digits):
    return "-" if value is None else f"{value:.{digits}f}"


# --- compute roofs: the peak FP64 and FP32 rates each file records -------------------------------

# Files written before results named their precision: the workloads whose arithmetic is float.
FLOAT_WORKLOADS = {"vector", "jacobi2d", "diffusion3d", "apsp"}


def precision_of(result):
    """fp64 or fp32: what the result says, else what its workload computes in."""
    if result.get("precision") in ("fp64", "fp32"):
        return result["precision"]
    return "fp32" if result.get("workload") in FLOAT_WORKLOADS else "fp64"


# The roofs of a precision: FP64 steps may run on FP64 tensor cores (cuda_tiled's and cuBLAS's
# DMMA), whose roof is above the FMA units'.
ROOF_KINDS = {"fp64": ("fp64", "fp64_tensor"), "fp32": ("fp32",)}
KIND_NAMES = {"fp64": "FP64", "fp32": "FP32", "fp64_tensor": "FP64 tensor"}

# Cards whose files predate recorded peaks: NVIDIA's published SM count and boost clock (MHz) and
# the FMAs an SM completes a cycle for their compute capability, as src/core/peak_rates.cpp's
# table has them (the CUDA programming guide's throughput table; FP64 tensor from the datasheets).
PUBLISHED_CARDS = {
    "NVIDIA H100 80GB HBM3": (132, 1980, {"fp64": 64, "fp32": 128, "fp64_tensor": 128}),
    "NVIDIA H200": (132, 1980, {"fp64": 64, "fp32": 128, "fp64_tensor": 128}),
    "NVIDIA H100 PCIe": (114, 1755, {"fp64": 64, "fp32": 128, "fp64_tensor": 128}),
    "NVIDIA A100-SXM4-40GB": (108, 1410, {"fp64": 32, "fp32": 64, "fp64_tensor": 64}),
    "NVIDIA A100-SXM4-80GB": (108, 1410, {"fp64": 32, "fp32": 64, "fp64_tensor": 64}),
}


def peaks_of(document):
    """{"gpu": {kind: GFLOP/s, "origin": text}, "host": {...}}: the peaks the file records
    (host.peak_gflops, the first device's peak_gflops), or for a GPU whose file records none, the
    published figures of a card the report knows by name."""
    peaks = {}
    host = document.get("host")
    recorded = host.get("peak_gflops") if isinstance(host, dict) else None
    if isinstance(recorded, dict) and number(recorded.get("fp64")) is not None:
        peaks["host"] = {k: number(recorded.get(k)) for k in ROOF_KINDS["fp64"] + ("fp32",)}
        peaks["host"]["origin"] = text(recorded.get("origin"))
    devices = [d for d in document.get("devices") or [] if isinstance(d, dict)]
    if devices:
        device = devices[0]
        recorded = device.get("peak_gflops")
        if isinstance(recorded, dict) and number(recorded.get("fp64")) is not None:
            peaks["gpu"] = {k: number(recorded.get(k)) for k in ROOF_KINDS["fp64"] + ("fp32",)}
            peaks["gpu"]["origin"] = text(recorded.get("origin"))
        elif recorded is None and device.get("name") in PUBLISHED_CARDS:
            sms, mhz, fma = PUBLISHED_CARDS[device["name"]]
            peaks["gpu"] = {k: 2.0 * sms * mhz * 1e-3 * lanes for k, lanes in fma.items()}
            peaks["gpu"]["origin"] = (
                f"worked out by the report, the file records none: {sms} SMs × {mhz} MHz, "
                f"NVIDIA's published configuration of the {device['name']}, × FMA a cycle for "
                f"compute capability {text(device.get('compute_capability'))} × 2 flops")
    return peaks


def missing_peaks(document):
    """Why the file records no peak for its host or GPU, where it says so."""
    reasons = []
    host = document.get("host") if isinstance(document.get("host"), dict) else {}
    devices = [d for d in document.get("devices") or [] if isinstance(d, dict)]
    for name, holder in [("host", host)] + [(f"GPU {text(d.get('name'))}", d) for d in devices]:
        peaks = holder.get("peak_gflops")
        if isinstance(peaks, dict) and isinstance(peaks.get("missing"), str):
            reasons.append(f"{name}: {peaks['missing']}")
    return reasons


def rate_text(gflops):
    return f"{gflops / 1e3:.1f} TFLOP/s" if gflops >= 1e3 else f"{gflops:.1f} GFLOP/s"


def roofs_of(files, steps):
    """The flat roofs of the steps' places and precisions, as dicts {place, name, value,
    origins}: each file's roofs for the precisions of its verified steps on each place, roofs of
    one place and value said once ("GPU FP32 / FP64 tensor"), with the runs' letters where the
    files differ."""
    found = {}  # (place, rounded value) -> {"kinds": [...], "value", "labels", "origins"}
    for file in files:
        peaks = peaks_of(file["document"])
        wanted = sorted({(s.place, s.precision) for s in steps
                         if s.run == file["label"] and s.status == "verified"})
        for place, precision in wanted:
            if place not in peaks:
                continue
            for kind in ROOF_KINDS[precision]:
                value = peaks[place].get(kind)
                if value is None or value <= 0:
                    continue
                roof = found.setdefault((place, round(value, 1)), {
                    "kinds": [], "value": value, "labels": [], "origins": []})
                if kind not in roof["kinds"]:
                    roof["kinds"].append(kind)
                if file["label"] not in roof["labels"]:
                    roof["labels"].append(file["label"])
                origin = peaks[place]["origin"]
                if origin and origin not in roof["origins"]:
                    roof["origins"].append(origin)
    roofs = []
    for (place, _), roof in sorted(found.items(), key=lambda item: -item[1]["value"]):
        name = ("GPU " if place == "gpu" else "host ") + " / ".join(
            KIND_NAMES[k] for k in roof["kinds"])
        if len(files) > 1 and len(roof["labels"]) < len(files):
            name += f" ({','.join(roof['labels'])})"
        roofs.append({"place": place, "name": name, "value": roof["value"],
                      "origins": roof["origins"]})
    return roofs


def roof_label(roof):
    return f"{roof['name']} {rate_text(roof['value'])}"


def place_of_ceiling(name):
    """Which processor a bandwidth ceiling belongs to: "device copy" is the GPU's."""
    return "gpu" if name.startswith("device") else "host"


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
            times = [t for t in (number(t) for t in r.get("times_s") or []) if t is not None]
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


# --- the steps of the page, grouped by workload ---------------------------------------------------

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
        times = [t for t in (number(t) for t in result.get("times_s") or []) if t is not None]
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


# --- charts ---------------------------------------------------------------------------------------

RUN_COLOURS = ["#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860", "#da8bc3",
               "#8c8c8c", "#ccb974", "#64b5cd"]


def colour(run_index):
    return RUN_COLOURS[run_index % len(RUN_COLOURS)]


class Charts:
    """matplotlib, imported once; each figure becomes an inline <svg> element."""

    def __init__(self):
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        self.matplotlib = matplotlib
        self.plt = plt
        # Text as <text> elements rather than glyph outlines: small files, and no glyph ids that
        # two charts of one page would share.
        matplotlib.rcParams["svg.fonttype"] = "none"
        matplotlib.rcParams["font.size"] = 9
        self.count = 0

    def svg(self, fig):
        # Every chart's ids (clip paths, markers) salted apart: one page holds them all, and an
        # id defined twice would make a browser clip one chart with another's path.
        self.count += 1
        self.matplotlib.rcParams["svg.hashsalt"] = f"acclab-report-{self.count}"
        buffer = io.StringIO()
        fig.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
        self.plt.close(fig)
        svg = buffer.getvalue()
        # Inline SVG needs no XML declaration or DOCTYPE (whose DTD address a reader would take
        # for a resource), and the RDF metadata block names only the file's type.
        svg = svg[svg.index("<svg"):]
        svg = re.sub(r"<metadata>.*?</metadata>\s*", "", svg, flags=re.S)
        return svg

    def ladder(self, steps, several_runs):
        """Each step's median time (log scale, whiskers to min and max) beside its fraction of
        the limit, one bar a step, as tall as the steps need."""
        plt = self.plt
        n = len(steps)
        fig, (times, fractions) = plt.subplots(
            1, 2, figsize=(11, 1.3 + 0.27 * n), sharey=True,
            gridspec_kw={"width_ratios": [3, 2], "wspace": 0.05})
        y = list(range(n))
        timed = [s for s in steps if s.timed]
        if timed:
            low = min(s.min for s in timed) / 4
            high = max(s.max for s in timed) * 8
        else:
            low, high = 1e-6, 1.0
        times.set_xscale("log")
        times.set_xlim(low, high)
        for i, s in enumerate(steps):
            if s.timed:
                failed = s.status == "failed"
                times.barh(i, s.median - low, left=low, height=0.7,
                           color="#f4b6b6" if failed else colour(s.run_index),
                           hatch="xx" if failed else None, edgecolor="#c44e52" if failed else None,
                           xerr=[[s.median - s.min], [s.max - s.median]],
                           error_kw={"elinewidth": 0.8, "capsize": 2, "ecolor": "#333333"})
                times.text(s.max * 1.15, i, seconds_text(s.median) + (" (failed)" if failed
                                                                       else ""),
                           va="center", fontsize=7)
            else:
                times.text(low * 1.2, i, s.status, va="center", fontsize=7, color="#777777",
                           style="italic")
        times.set_xlabel("time per run (s, log scale): median, whiskers min to max")
        times.set_yticks(y)
        times.set_yticklabels([s.label for s in steps], fontsize=8)
        times.set_ylim(n - 0.5, -0.5)
        times.grid(axis="x", which="major", color="#dddddd", linewidth=0.6)
        times.set_axisbelow(True)

        measured = [s.limit_fraction for s in steps if s.limit_fraction is not None]
        right = max([1.05] + [f * 1.15 for f in measured])
        fractions.set_xlim(0, right)
        fractions.axvline(1.0, color="grey", linewidth=0.8, linestyle="--")
        for i, s in enumerate(steps):
            if s.limit_fraction is None:
                if s.timed:
                    fractions.text(0.01, i, "no limit", va="center", fontsize=7, color="#777777",
                                   style="italic")
                continue
            fractions.barh(i, s.limit_fraction, height=0.7, color=colour(s.run_index),
                           alpha=0.45 if s.status == "failed" else 1.0)
            fractions.text(s.limit_fraction + right * 0.01, i,
                           f"{100 * s.limit_fraction:.1f}%", va="center", fontsize=7)
        fractions.set_xlabel("fraction of the limit (GB/s over the copy bandwidth)")
        fractions.grid(axis="x", color="#dddddd", linewidth=0.6)
        fractions.set_axisbelow(True)
        fractions.tick_params(axis="y", left=False)
        if several_runs:
            runs = sorted({(s.run_index, s.run) for s in steps})
            handles = [self.matplotlib.patches.Patch(color=colour(i), label=f"run {label}")
                       for i, label in runs]
            times.legend(handles=handles, fontsize=7, loc="upper right")
        return self.svg(fig)

    def roofline(self, steps, ceilings, roofs, several_runs):
        """Each verified step at its arithmetic intensity against the GFLOP/s it reached,
        under the bandwidth ceilings the runs measured and the flat compute roofs they record
        (`roofs`, roofs_of()); steps whose model counts no flops beside it, at their GB/s
        against the same bandwidths. Every point's label is placed clear of the others."""
        plt = self.plt
        placed = [s for s in steps if s.status == "verified" and s.intensity is not None
                  and s.intensity > 0 and s.gflops > 0]
        no_flops = [s for s in steps if s.status == "verified" and s.gflops == 0
                    and s.gbytes is not None and s.gbytes > 0]
        if not placed and not no_flops:
            return None
        columns = (1 if placed else 0) + (1 if no_flops else 0)
        ratios = ([4] if placed else []) + ([1] if no_flops else [])
        fig, axes = plt.subplots(1, columns, figsize=(4.0 + 5.0 * bool(placed)
                                                      + 2.0 * bool(no_flops), 5.0),
                                 squeeze=False, gridspec_kw={"width_ratios": ratios})
        axes = list(axes[0])
        # Names where they fit; beyond a dozen the table's # says which is which.
        name_points = len(placed) + len(no_flops) <= 12

        def label_points(ax, marks, roofs=(), ceiling_labels=()):
            for s, x, y in marks:
                ax.scatter([x], [y], s=28, color=colour(s.run_index), edgecolor="black",
                           linewidth=0.5, zorder=3)
            place_labels(fig, ax, [(x, y, s.label if name_points else f"#{s.number}")
                                   for s, x, y in marks],
                         [(roof_label(r), r["value"]) for r in roofs], ceiling_labels)

        if placed:
            ax = axes.pop(0)
            xs = [s.intensity for s in placed]
            ys = [s.gflops for s in placed]
            x_low = min(xs + [1.0]) / 8
            x_high = max(xs + [1.0]) * 8
            ax.set_xscale("log")
            ax.set_yscale("log")
            grid = [x_low * (x_high / x_low) ** (k / 200) for k in range(201)]
            # A bandwidth's slope ends at the highest roof of the processor it belongs to.
            top_of = {}
            for roof in roofs:
                top_of[roof["place"]] = max(top_of.get(roof["place"], 0), roof["value"])
            bandwidth_tops, ceiling_labels = [], []
            for name, bandwidth in ceilings:
                roof_top = top_of.get(place_of_ceiling(name), math.inf)
                line = [min(bandwidth * x, roof_top) for x in grid]
                bandwidth_tops.append(line[-1])
                ax.plot(grid, line, color="#444444", linewidth=1.0)
                ax.annotate(f"{name} {bandwidth:.1f} GB/s", (grid[8], line[8]),
                            textcoords="offset points", xytext=(0, 4), fontsize=7,
                            rotation=0, color="#444444")
                ceiling_labels.append((f"{name} {bandwidth:.1f} GB/s", (grid[8], line[8])))
            for roof in roofs:
                gpu = roof["place"] == "gpu"
                ax.axhline(roof["value"], color="#7a3b8f" if gpu else "#2f6f4f", linewidth=1.1,
                           linestyle="-." if gpu else ":")
                ax.annotate(roof_label(roof), (x_high, roof["value"]), textcoords="offset points",
                            xytext=(-4, 3), ha="right", fontsize=7,
                            color="#7a3b8f" if gpu else "#2f6f4f")
            tops = ys + bandwidth_tops + [r["value"] for r in roofs]
            ax.set_ylim(min(ys) / 8, max(tops) * 3)
            ax.set_xlim(x_low, x_high)
            ax.set_xlabel("arithmetic intensity (flop per byte, from the performance model)")
            ax.set_ylabel("GFLOP/s reached (median run)")
            ax.grid(which="major", color="#dddddd", linewidth=0.6)
            if not roofs:
                ax.set_title("no compute peak recorded: bandwidth ceilings only", fontsize=8,
                             color="#555555")
            label_points(ax, [(s, s.intensity, s.gflops) for s in placed], roofs,
                         ceiling_labels)
        if no_flops:
            ax = axes.pop(0)
            ax.set_yscale("log")
            rates = [s.gbytes for s in no_flops]
            for name, bandwidth in ceilings:
                ax.axhline(bandwidth, color="#444444", linewidth=1.0)
                ax.annotate(f"{name} {bandwidth:.1f} GB/s", (0, bandwidth),
                            textcoords="offset points", xytext=(2, 3), fontsize=7,
                            color="#444444")
            tops = rates + [b for _, b in ceilings]
            ax.set_ylim(min(rates) / 8, max(tops) * 3)
            ax.set_xlim(0, 1.6)
            label_points(ax, [(s, 0.2 + 0.6 * ((k * 0.37) % 1), s.gbytes)
                              for k, s in enumerate(no_flops)])
            ax.set_xticks([])
            ax.set_ylabel("GB/s reached (median run)")
            ax.set_title("0 flops in the model:\nbandwidth axis only", fontsize=8)
            ax.grid(axis="y", color="#dddddd", linewidth=0.6)
        if several_runs:
            runs = sorted({(s.run_index, s.run) for s in placed + no_flops})
            handles = [self.matplotlib.lines.Line2D([], [], marker="o", linestyle="",
                                                    color=colour(i), label=f"run {label}")
                       for i, label in runs]
            fig.legend(handles=handles, fontsize=7, loc="upper right")
        return self.svg(fig)


def place_labels(fig, ax, marks, roofs=(), ceilings=()):
    """Annotates each (x, y, label) of `marks` (data coordinates, limits already set) so that no
    two labels overlap and none covers a point: beside its point where that is free, else moved
    up or down in steps of a line, with a leader line back to its point. Sizes in points: a
    7-point label is taken as 0.6 em a character wide and 8.4 points a line tall."""
    to_points = 72.0 / fig.dpi
    # Points drawn on the same spot (the same step in several runs, or a hundred copies) share
    # one label listing them, a few to a line.
    spots = {}
    for x, y, label in marks:
        px, py = ax.transData.transform((x, y)) * to_points
        spots.setdefault((round(px * 2), round(py * 2)), (x, y, []))[2].append(label)
    marks = [(x, y, "\n".join(", ".join(labels[i:i + 6]) for i in range(0, len(labels), 6)))
             for x, y, labels in spots.values()]
    where = [tuple(ax.transData.transform((x, y)) * to_points) for x, y, _ in marks]
    taken = [(px - 3.5, py - 3.5, px + 3.5, py + 3.5) for px, py in where]  # the markers
    # The flat roofs (a line, and its label at the right end) are in the way too.
    right = ax.transAxes.transform((1, 0))[0] * to_points
    for text_of_ceiling, (x, y) in ceilings:
        cx, cy = ax.transData.transform((x, y)) * to_points
        taken.append((cx, cy + 3, cx + 0.6 * 7 * len(text_of_ceiling), cy + 12))
    for text_of_roof, value in roofs:
        ry = ax.transData.transform((1, value))[1] * to_points
        taken.append((-math.inf, ry - 1.5, math.inf, ry + 1.5))
        taken.append((right - 4 - 0.6 * 7 * len(text_of_roof), ry + 2, right, ry + 11))

    def free(box):
        return not any(box[0] < b[2] and b[0] < box[2] and box[1] < b[3] and b[1] < box[3]
                       for b in taken)

    # From the top down, so that a column of points sharing an intensity stacks its labels.
    for k in sorted(range(len(marks)), key=lambda k: (-where[k][1], where[k][0])):
        x, y, label = marks[k]
        px, py = where[k]
        lines = label.split("\n")
        width, height = 0.6 * 7 * max(len(line) for line in lines) + 1, 8.4 * len(lines)
        for attempt in range(400):
            shift = attempt // 2
            dy = (0.0 if shift == 0 else (shift + 1) // 2 * 9 * (1 if shift % 2 else -1))
            dx = 5.0 if attempt % 2 == 0 else -5.0  # right of the point, else left of it
            left = px + dx if dx > 0 else px + dx - width
            box = (left, py + dy, left + width, py + dy + height)
            if free(box):
                break
        taken.append(box)
        ax.annotate(label, (x, y), textcoords="offset points", xytext=(dx, dy), fontsize=7,
                    ha="left" if dx > 0 else "right", va="bottom",
                    arrowprops=None if dy == 0.0 else {"arrowstyle": "-", "linewidth": 0.5,
                                                       "color": "#777777",
                                                       "shrinkA": 0, "shrinkB": 3})


# --- the page -------------------------------------------------------------------------------------

STYLE = """
body { font-family: system-ui, sans-serif; margin: 1.5em; color: #222; max-width: 1400px; }
h1 { font-size: 1.5em; } h2 { border-bottom: 1px solid #ccc; margin-top: 2em; }
h3 { font-size: 1.05em; margin-bottom: 0.3em; }
table { border-collapse: collapse; font-size: 0.85em; }
th, td { border: 1px solid #ddd; padding: 2px 6px; vertical-align: top; text-align: left; }
th { background: #f3f3f3; position: sticky; top: 0; }
td.n { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
.scroll { overflow: auto; max-height: 36em; border: 1px solid #eee; }
.chart { overflow-x: auto; }
.chart svg { display: block; }
.verified { color: #1a7f37; } .failed { color: #c0392b; font-weight: bold; }
.unavailable { color: #777; }
ul.notes { margin: 0; padding-left: 1.1em; }
.muted { color: #666; font-size: 0.9em; }
code, pre { font-family: ui-monospace, monospace; font-size: 0.9em; }
pre { white-space: pre-wrap; word-break: break-all; }
dl.prov { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 2px 1em;
          font-size: 0.9em; }
dl.prov dt { font-weight: bold; } dl.prov dd { margin: 0; overflow-wrap: anywhere; }
code.wrap { white-space: pre-wrap; overflow-wrap: anywhere; }
.derived { font-style: italic; }
"""


def table(headers, rows, numeric=(), row_attributes=None):
    """An HTML table in a scrolling box; `rows` hold HTML already escaped."""
    out = ['<div class="scroll"><table><thead><tr>']
    out += [f"<th>{h}</th>" for h in headers]
    out.append("</tr></thead><tbody>")
    for i, row in enumerate(rows):
        attributes = row_attributes[i] if row_attributes else ""
        out.append(f"<tr{attributes}>")
        for k, cell in enumerate(row):
            out.append(f'<td class="n">{cell}</td>' if k in numeric else f"<td>{cell}</td>")
        out.append("</tr>")
    out.append("</tbody></table></div>")
    return "".join(out)


def ceilings_of(files):
    """The bandwidth limits (GB/s) the runs measured, as (name, value), each once; a name
    carries the runs' letters where the runs differ."""
    found = {}
    for file in files:
        limits = file["document"].get("limits")
        if not isinstance(limits, dict):
            continue
        for key, value in limits.items():
            value = number(value)
            if value is None or value <= 0 or not key.endswith("_gbytes_per_s"):
                continue
            name = key[: -len("_gbytes_per_s")].replace("_", " ")
            found.setdefault((name, round(value, 1)), []).append(file["label"])
    several = len(files) > 1
    return [(f"{name} ({','.join(labels)})" if several and len(labels) < len(files) else name,
             value) for (name, value), labels in found.items()]


def speedup_text(result, key):
    """A ladder's speedup as its table prints it: ~ where it is within noise (acclab.run/1's
    KEY_within_noise), the interval KEY_interval as the cell's title."""
    value = number(result.get(key))
    if value is None:
        return "-"
    shown = ("~" if result.get(key + "_within_noise") is True else "") + f"{value:.2f}x"
    interval = result.get(key + "_interval")
    if isinstance(interval, list) and len(interval) == 2 and all(
            number(x) is not None for x in interval):
        return (f'<span title="95% interval [{number(interval[0]):.2f}, '
                f'{number(interval[1]):.2f}]">{esc(shown)}</span>')
    first = result.get("speedups_from_report")
    if isinstance(first, str):
        against = first if key == "speedup_vs_first" else text(result.get("previous_variant"))
        return (f'<span class="derived" title="worked out by the report from this run\'s '
                f'medians (the run recorded no speedups): against {esc(against)}, no noise '
                f'test">{esc(shown)}</span>')
    return esc(shown)


def steps_table(steps, several_runs):
    headers = ["#"] + (["run"] if several_runs else []) + [
        "variant", "backend", "step", "place", "status", "median", "min", "max", "reps",
        "GFLOP/s", "GB/s", "flop/byte", "%limit", "vs 1st", "vs prev", "params", "notes"]
    numeric = {k for k, h in enumerate(headers)
               if h in ("#", "step", "median", "min", "max", "reps", "GFLOP/s", "GB/s",
                        "flop/byte", "%limit", "vs 1st", "vs prev")}
    rows, attributes = [], []
    for s in steps:
        r = s.result
        cells = [str(s.number)] + ([esc(s.run)] if several_runs else [])
        intensity = s.intensity
        if s.gflops == 0 and s.timed:
            intensity_text = "0 (no flops)"
        else:
            intensity_text = "-" if intensity is None else f"{intensity:.3g}"
        notes = s.notes()
        cells += [
            f"<code>{esc(s.variant)}</code>",
            esc(r.get("backend")),
            esc(r.get("step")),
            esc(r.get("place")),
            f'<span class="{esc(s.status)}">{esc(s.status)}</span>',
            seconds_text(s.median),
            seconds_text(s.min),
            seconds_text(s.max),
            str(len(s.times)),
            fixed(s.gflops, 2) if s.timed else "-",
            fixed(s.gbytes, 1) if s.timed else "-",
            intensity_text if s.timed else "-",
            "-" if s.limit_fraction is None else f"{100 * s.limit_fraction:.1f}",
            speedup_text(r, "speedup_vs_first"),
            speedup_text(r, "speedup_vs_previous"),
            "<code>" + " ".join(esc(f"{k}={text(v)}") for k, v in sorted(s.params.items()))
            + "</code>",
            ('<ul class="notes">' + "".join(f"<li>{esc(n)}</li>" for n in notes) + "</ul>")
            if notes else "",
        ]
        rows.append(cells)
        attributes.append(f' id="step-{s.number}-{esc(s.workload)}" data-run="{esc(s.run)}"'
                          f' data-workload="{esc(s.workload)}" data-variant="{esc(s.variant)}"')
    return table(headers, rows, numeric, attributes)


def verification_list(steps):
    lines = [f"<li><code>{esc(s.label)}</code>: {esc(s.result['verification'])}</li>"
             for s in steps if isinstance(s.result.get("verification"), str)
             and s.result["verification"]]
    if not lines:
        return ""
    return ("<details><summary>How each step was verified</summary><ul>" + "".join(lines)
            + "</ul></details>")


def workload_section(name, steps, files, charts):
    several_runs = len({s.run for s in steps}) > 1
    own_files = [f for f in files if any(s.run == f["label"] for s in steps)]
    ceilings = ceilings_of(own_files)
    roofs = roofs_of(own_files, steps)
    out = [f'<section id="workload-{esc(name)}"><h2>{esc(name)}</h2>']
    out.append("<h3>Ladder</h3>")
    out.append('<p class="muted">Median time per run on a log scale (whiskers: the fastest and '
               "slowest timed run) and each step's fraction of the limit measured on its "
               "machine (GB/s over the copy bandwidth where the step ran).</p>")
    out.append(f'<div class="chart">{charts.ladder(steps, several_runs)}</div>')
    out.append("<h3>Roofline</h3>")
    roofline = charts.roofline(steps, ceilings, roofs, several_runs)
    no_flops = [s for s in steps if s.status == "verified" and s.gflops == 0]
    explained = ("Each verified step at its arithmetic intensity (flops over bytes of its "
                 "performance model: GFLOP/s over GB/s of the same runs) against the GFLOP/s it "
                 "reached. The slanted lines are the bandwidths the runs measured "
                 + (", ".join(f"{esc(n)} {b:.1f} GB/s" for n, b in ceilings) or "(none recorded)")
                 + ".")
    if roofs:
        explained += (" The flat lines are the compute peaks of the steps' precisions ("
                      + ", ".join(f"{esc(r['name'])} {rate_text(r['value'])}" for r in roofs)
                      + "; an FMA counted as 2 flops), worked out, not measured: "
                      + "; ".join(esc(o) for o in dict.fromkeys(
                          o for r in roofs for o in r["origins"])) + ".")
    else:
        explained += (" The runs record no compute peak for the processors and precisions "
                      "of these steps (results before peak_gflops was recorded, a GPU the "
                      "report does not know by name, or a peak the machine could not work "
                      "out), so no flat roof is drawn.")
        missing = dict.fromkeys(why for f in own_files for why in missing_peaks(f["document"]))
        if missing:
            explained += " Why: " + "; ".join(esc(why) for why in missing) + "."
    if no_flops:
        explained += (" Steps whose model counts no flops ("
                      + ", ".join(f"<code>{esc(s.label)}</code>" for s in no_flops)
                      + ") have no intensity: they stand on the bandwidth axis alone, at the "
                      "GB/s they reached.")
    failed = [s for s in steps if s.status != "verified"]
    if failed:
        explained += (" Not placed (not verified): "
                      + ", ".join(f"<code>{esc(s.label)}</code> ({esc(s.status)})"
                                  for s in failed) + ".")
    out.append(f'<p class="muted">{explained}</p>')
    if roofline:
        out.append(f'<div class="chart">{roofline}</div>')
    else:
        out.append("<p>No verified step with a rate to place.</p>")
    out.append("<h3>Steps</h3>")
    out.append(steps_table(steps, several_runs))
    out.append(verification_list(steps))
    out.append("</section>")
    return "".join(out)


def comparison_section(payload):
    comparison = payload.get("comparison")
    out = ['<section id="comparison"><h2>Comparison (acclab compare)</h2>']
    if not isinstance(comparison, dict):
        out.append(f"<p>Not compared: {esc(payload.get('not_compared'))}</p></section>")
        return "".join(out)
    files = {f["path"]: f["label"] for f in comparison.get("files", [])}
    out.append("<p>" + ", ".join(f"{esc(f['label'])} <code>{esc(f['path'])}</code>"
                                 + (" (baseline)" if f.get("role") == "baseline" else "")
                                 for f in comparison.get("files", [])) + "</p>")
    differences = comparison.get("provenance_differences") or []
    if differences:
        rows = [[esc(d["name"])] + [esc(v if v is not None else "(not recorded)")
                                    for v in d["values"]] for d in differences]
        out.append("<h3>Provenance that differs</h3>")
        out.append(table(["what"] + [esc(f["label"]) for f in comparison["files"]], rows))
    else:
        out.append("<p>The same host, GPUs, compiler, flags, commit and tunings file.</p>")
    rows = []
    for r in comparison.get("rows", []):
        limits = r.get("limit_fraction") or {}
        rows.append([
            esc(r.get("pair")), f"<code>{esc(r['workload'])}/{esc(r['variant'])}</code>",
            esc(r.get("preset")), esc(r["reps"]["baseline"]), esc(r["reps"]["file"]),
            seconds_text(number(r["median_s"]["baseline"])),
            seconds_text(number(r["median_s"]["file"])),
            f"{number(r['ratio']):.3f}",
            "-" if r.get("ratio_low") is None
            else f"[{number(r['ratio_low']):.3f}, {number(r['ratio_high']):.3f}]",
            "-" if r.get("p_value") is None else f"{number(r['p_value']):.2g}",
            fixed(None if number(limits.get("baseline")) is None
                  else 100 * number(limits["baseline"]), 1),
            fixed(None if number(limits.get("file")) is None else 100 * number(limits["file"]), 1),
            f"<b>{esc(r['verdict'])}</b>", f"<code>{esc(json.dumps(r.get('params')))}</code>"])
    out.append("<h3>Steps in common</h3>")
    out.append(table(["pair", "step", "preset", "reps A", "reps B", "median A", "median B",
                      "B/A", "95% interval", "p", "%limit A", "%limit B", "verdict", "params"],
                     rows, numeric=set(range(3, 12))))
    not_compared = comparison.get("not_compared") or []
    if not_compared:
        out.append("<h3>Not compared</h3><ul>")
        out += [f"<li><code>{esc(u['workload'])}/{esc(u['variant'])}</code> "
                f"({esc(files.get(u['file'], u['file']))}): {esc(u['reason'])}</li>"
                for u in not_compared]
        out.append("</ul>")
    left_out = comparison.get("files_not_compared") or []
    if left_out:
        out.append("<p>Not compared, shown above only: " + "; ".join(esc(w) for w in left_out)
                   + "</p>")
    stats = comparison.get("statistics") or {}
    out.append(f'<p class="muted">B/A: median time over the baseline\'s (below 1: faster); 95% '
               f"interval: {esc(stats.get('interval'))} ({esc(stats.get('resamples'))} "
               f"resamples); p and verdict: {esc(stats.get('test'))} test at alpha = "
               f"{esc(stats.get('alpha'))}, faster or slower only beyond the noise threshold of "
               f"{esc(stats.get('noise_percent', 0))}% (too few reps: below "
               f"{esc(stats.get('min_reps'))} runs on a side); %limit: each run's share of its own machine's measured limit "
               "(docs/compare.md).</p></section>")
    return "".join(out)


def provenance_section(files):
    out = ['<section id="provenance"><h2>Provenance</h2>']
    for file in files:
        d = file["document"]
        items = [("file", f"<code>{esc(file['path'])}</code>")]
        words = d.get("command_line")
        if isinstance(words, list):
            items.append(("command line", '<code class="wrap">'
                          f"{esc(' '.join(shlex.quote(text(w)) for w in words))}</code>"))
        host = d.get("host") if isinstance(d.get("host"), dict) else {}
        memory = number(host.get("memory_bytes"))
        items.append(("host", esc(f"{text(host.get('hostname'))} ({text(host.get('cpu'))}, "
                                  f"{text(host.get('cores'))} cores"
                                  + (f", {memory / 2**30:.1f} GiB" if memory else "") + ")")))
        if isinstance(host.get("openmp"), dict):
            items.append(("OpenMP", f"<code>{esc(host['openmp'])}</code>"))
        devices = d.get("devices")
        if isinstance(devices, list):
            shown = []
            for device in devices:
                if isinstance(device, dict):
                    shown.append(", ".join(f"{k} {text(v)}" for k, v in device.items()))
            items.append(("devices", "<br>".join(esc(s) for s in shown) or "no GPU"))
        for key, name in (("openacc_runs_on", "OpenACC runs on"),
                          ("omptarget_runs_on", "OpenMP target runs on")):
            if key in d:
                items.append((name, esc(d[key])))
        for group in ("compiler", "build", "limits"):
            if isinstance(d.get(group), dict):
                for key, value in d[group].items():
                    if group == "build" and key in d.get("compiler", {}) and \
                            d["compiler"].get(key) == value:
                        continue  # said once, under compiler
                    items.append((f"{group}: {key}", f"<code>{esc(value)}</code>"))
        out.append(f"<h3>Run {esc(file['label'])}: acclab {esc(d.get('command'))} "
                   f"{esc(d.get('workload'))} (preset {esc(d.get('preset'))})</h3>")
        out.append('<dl class="prov">' + "".join(f"<dt>{esc(k)}</dt><dd>{v}</dd>"
                                                 for k, v in items) + "</dl>")
    out.append("</section>")
    return "".join(out)


def page(payload, charts):
    files = payload["files"]
    for i, file in enumerate(files):
        file["index"] = i
    derive_speedups(files)
    workloads = workloads_of(files)
    title = "acclab report: " + ", ".join(workloads) if workloads else "acclab report"
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           f"<title>{esc(title)}</title><style>{STYLE}</style></head><body>",
           f"<h1>{esc(title)}</h1>"]
    rows = []
    for file in files:
        d = file["document"]
        host = d.get("host") if isinstance(d.get("host"), dict) else {}
        devices = d.get("devices") if isinstance(d.get("devices"), list) else []
        gpus = ", ".join(text(g.get("name")) for g in devices if isinstance(g, dict)) or "no GPU"
        build = d.get("build") if isinstance(d.get("build"), dict) else {}
        rows.append([esc(file["label"]), f"<code>{esc(file['path'])}</code>",
                     esc(f"{text(d.get('command'))} {text(d.get('workload'))}"),
                     esc(d.get("preset")), str(len(d["results"])),
                     esc(f"{text(host.get('hostname'))}: {text(host.get('cpu'))}; {gpus}"),
                     f"<code>{esc(text(build.get('commit'))[:12])}</code>"
                     + (" (dirty)" if build.get("dirty") is True else "")])
    out.append("<h2>Runs</h2>")
    out.append(table(["run", "file", "command", "preset", "steps", "machine", "commit"], rows,
                     numeric={4}))
    links = [f'<a href="#workload-{esc(w)}">{esc(w)}</a>' for w in workloads]
    if len(files) > 1:
        links.append('<a href="#comparison">comparison</a>')
    links.append('<a href="#provenance">provenance</a>')
    out.append("<p>" + " · ".join(links) + "</p>")
    for name, steps in workloads.items():
        out.append(workload_section(name, steps, files, charts))
    if len(files) > 1:
        out.append(comparison_section(payload))
    out.append(provenance_section(files))
    words = payload.get("command_line")
    if isinstance(words, list):
        out.append('<p class="muted">Made by <code class="wrap">'
                   + esc(" ".join(shlex.quote(text(w)) for w in words)) + "</code></p>")
    out.append("</body></html>\n")
    return "\n".join(out)


def main(argv):
    if argv[1:] == ["--check"]:
        try:
            import matplotlib  # noqa: F401
        except ImportError as e:
            fail(f"matplotlib cannot be imported ({e}); scripts/setup.sh installs "
                 "python3-matplotlib")
        return 0
    if len(argv) != 1:
        fail("usage: report-html.py < INPUT.json > PAGE.html (acclab report runs it)")
    try:
        payload = json.load(sys.stdin)
        files = payload["files"]
        if not files or any(not isinstance(f["document"]["results"], list) for f in files):
            raise ValueError("no files, or a file without results")
    except (json.JSONDecodeError, UnicodeDecodeError, KeyError, TypeError, ValueError) as e:
        fail(f"stdin: not the input acclab report writes ({type(e).__name__}: {e})")
    try:
        charts = Charts()
    except ImportError as e:
        fail(f"matplotlib cannot be imported ({e}); scripts/setup.sh installs python3-matplotlib")
    sys.stdout.write(page(payload, charts))
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
