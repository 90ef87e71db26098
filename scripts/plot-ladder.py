#!/usr/bin/python3
"""Draws an acclab report (acclab run/ladder --format json) as a picture of its ladder.

usage: scripts/plot-ladder.py RESULTS.json OUT.svg [--title TEXT]

Top panel: each verified step's median time on a log scale, split into the data movement of one
run measured alone (transfer_s, hatched) and the rest (compute). Bottom panel: each step's
fraction of the machine limit (limit_fraction: GB/s over the copy bandwidth where it ran), for
workloads that have one. Unavailable and failed steps are labelled, not drawn. The format
follows OUT's extension (svg, png, pdf). Bad input: one line on stderr, exit status 2, and no
output file.
"""
import os
import sys

import run_file
from plot_output import save_whole


def fail(message):
    print(f"plot-ladder: {message}", file=sys.stderr)
    sys.exit(2)


def main(argv):
    args = [a for a in argv[1:]]
    title = None
    if "--title" in args:
        at = args.index("--title")
        if at + 1 >= len(args):
            fail("--title: expected a text")
        title = args[at + 1]
        del args[at:at + 2]
    if len(args) != 2:
        fail("usage: plot-ladder.py RESULTS.json OUT.svg [--title TEXT]")
    source, target = args
    extension = os.path.splitext(target)[1].lower().lstrip(".")
    if extension not in ("svg", "png", "pdf"):
        fail(f"{target}: expected a .svg, .png or .pdf file name")
    directory = os.path.dirname(os.path.abspath(target))
    if not os.path.isdir(directory) or not os.access(directory, os.W_OK):
        fail(f"{target}: cannot write there")
    document, results = run_file.load(source, fail)

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names, medians, transfers, limits, skipped = [], [], [], [], []
    for number, r in enumerate(results):
        try:
            status = r.get("status")
            name = str(r.get("variant", "?"))
            params = r.get("params") or {}
            if params.get("devices") is not None and "devices=" in str(r.get("note", "")):
                name += f" ×{params['devices']}"
            if status != "verified":
                skipped.append(f"{name}: {status}")
                continue
            median = run_file.median_s(r)
            transfer = r.get("transfer_s")
            transfer = min(float(transfer), median) if transfer is not None else 0.0
            limit = r.get("limit_fraction")
            limit = float(limit) if limit is not None else None
        except (AttributeError, KeyError, TypeError, ValueError) as e:
            fail(f"{source}: result {number}: not an acclab result ({type(e).__name__}: {e})")
        names.append(name)
        medians.append(median)
        transfers.append(transfer)
        limits.append(limit)
    if not names:
        fail(f"{source}: no verified result to draw")

    has_limits = any(x is not None for x in limits)
    rows = 2 if has_limits else 1
    fig, axes = plt.subplots(rows, 1, figsize=(max(6.0, 0.9 * len(names) + 2), 3.2 * rows + 0.6),
                             squeeze=False, sharex=True)
    top = axes[0][0]
    x = list(range(len(names)))
    compute = [m - t for m, t in zip(medians, transfers)]
    top.bar(x, compute, color="#4c72b0", label="compute")
    top.bar(x, transfers, bottom=compute, color="#dd8452", hatch="//", label="data movement")
    top.set_yscale("log")
    # Bars start at zero, which a log axis cannot show: fix the range around the data.
    top.set_ylim(min(m for m in medians if m > 0) / 3, max(medians) * 4)
    top.set_ylabel("median time per run (s)")
    for xi, m in zip(x, medians):
        top.annotate(f"{m:.3g} s", (xi, m), ha="center", va="bottom", fontsize=8)
    top.legend(fontsize=8, loc="upper right")
    device = document.get("devices") or []
    where = device[0].get("name", "GPU") if device else document.get("host", {}).get("cpu", "host")
    heading = title or (f"acclab {document.get('command', '')} {document.get('workload', '')} "
                        f"--preset {document.get('preset', '')} ({where})")
    top.set_title(heading, fontsize=10)
    if has_limits:
        bottom = axes[1][0]
        fractions = [x if x is not None else 0.0 for x in limits]
        bottom.bar(x, fractions, color="#55a868")
        bottom.set_ylabel("fraction of the limit")
        bottom.set_ylim(0, max(1.0, max(fractions) * 1.1))
        bottom.axhline(1.0, color="grey", linewidth=0.8, linestyle="--")
        for xi, f in zip(x, limits):
            if f is not None:
                bottom.annotate(f"{f:.2f}", (xi, f), ha="center", va="bottom", fontsize=8)
    axes[-1][0].set_xticks(x)
    axes[-1][0].set_xticklabels(names, rotation=30, ha="right", fontsize=8)
    if skipped:
        fig.text(0.01, 0.01, "not drawn: " + "; ".join(skipped), fontsize=7, color="grey")
    fig.tight_layout(rect=(0, 0.03 if skipped else 0, 1, 1))

    save_whole(fig, target, extension, fail)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
