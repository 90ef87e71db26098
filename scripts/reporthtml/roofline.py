"""The roofline of a workload: the compute roofs each file records (or acclab report works out),
the bandwidth ceilings the runs measured, the chart that places each verified step under them,
and the caption that says where each line comes from."""
import math

import run_file
from reporthtml.charts import colour
from reporthtml.values import esc, rate_text

# --- compute roofs: the peak FP64 and FP32 rates each file records -------------------------------

# The roofs of a precision: FP64 steps may run on FP64 tensor cores (cuda_tiled's and cuBLAS's
# DMMA), whose roof is above the FMA units'.
ROOF_KINDS = {"fp64": ("fp64", "fp64_tensor"), "fp32": ("fp32",)}
KIND_NAMES = {"fp64": "FP64", "fp32": "FP32", "fp64_tensor": "FP64 tensor"}


def peaks_of(file):
    """run_file.peaks_of() of the file's document, or for a GPU whose file records none, the
    peaks acclab report works out for a card it knows by name (gpu_peak_gflops: NVIDIA's
    published SMs and clock through src/core/peak_rates.cpp's FMA table)."""
    peaks = run_file.peaks_of(file["document"])
    published = run_file.peak_rates(file.get("gpu_peak_gflops"))
    if "gpu" not in peaks and published is not None:
        peaks["gpu"] = published
    return peaks


def roofs_of(files, steps):
    """The flat roofs of the steps' places and precisions, as dicts {place, name, value,
    origins}: each file's roofs for the precisions of its verified steps on each place, roofs of
    one place and value said once ("GPU FP32 / FP64 tensor"), with the runs' letters where the
    files differ."""
    found = {}  # (place, rounded value) -> {"kinds": [...], "value", "labels", "origins"}
    for file in files:
        peaks = peaks_of(file)
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


def ceilings_of(files):
    """The bandwidth limits (GB/s) the runs measured, as (name, value), each once; a name
    carries the runs' letters where the runs differ."""
    found = {}
    for file in files:
        for name, value in run_file.bandwidth_limits(file["document"]):
            found.setdefault((name, round(value, 1)), []).append(file["label"])
    several = len(files) > 1
    return [(f"{name} ({','.join(labels)})" if several and len(labels) < len(files) else name,
             value) for (name, value), labels in found.items()]


def chart(charts, steps, ceilings, roofs, several_runs):
    """Each verified step at its arithmetic intensity against the GFLOP/s it reached,
    under the bandwidth ceilings the runs measured and the flat compute roofs they record
    (`roofs`, roofs_of()); steps whose model counts no flops beside it, at their GB/s
    against the same bandwidths. Every point's label is placed clear of the others."""
    plt = charts.plt
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
        handles = [charts.matplotlib.lines.Line2D([], [], marker="o", linestyle="",
                                                color=colour(i), label=f"run {label}")
                   for i, label in runs]
        fig.legend(handles=handles, fontsize=7, loc="upper right")
    return charts.svg(fig)


def caption(steps, ceilings, roofs, files):
    """What the roofline of `steps` shows, as HTML: where its slanted and flat lines come from
    (or why there are no flat ones), and which steps it leaves out or puts beside it."""
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
        missing = dict.fromkeys(why for f in files for why in run_file.missing_peaks(f["document"]))
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
    return explained


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
