#!/usr/bin/python3
"""Draws how far each OpenMP target step is from the OpenACC step it mirrors, on the H200.

usage: scripts/plot-directive-models.py [RESULTS_DIR [OUT.svg]]

For each pair in PAIRS below: the OpenMP step's median time over the OpenACC step's, as a
horizontal bar on a log scale, with lines at parity (1) and at the 2x goal. The ratios are also
printed as a text table. RESULTS_DIR defaults to bench/results/h200/directive-models and OUT.svg
to docs/img/directive-models.svg, both in this repository (so it runs from any folder); given
paths are taken as usual. A missing file or variant: one line on stderr, exit status 2, and no
output file. A pair whose result is not verified is left out and named on stderr.
"""
import os
import sys

import run_file
from plot_output import save_whole

REPOSITORY = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_RESULTS = os.path.join(REPOSITORY, "bench", "results", "h200", "directive-models")
DEFAULT_TARGET = os.path.join(REPOSITORY, "docs", "img", "directive-models.svg")

# label, file (under RESULTS_DIR), OpenACC variant, OpenMP variant[, where the OpenMP step differs:
# "omp_file" (another file) and "omp_params" (params it must have)].
PAIRS = (
    ("jacobi2d 16384², tuned", "why_a91a215/why_jacobi2d_large.json",
     "acc_tuned", "omp_target_tuned"),
    ("diffusion3d 256³, tuned", "rest_1472a61/rest_diffusion3d_large.json",
     "acc_tuned", "omp_target_tuned"),
    ("matmul 1024³, tuned", "rest_1472a61/rest_matmul_seed.json",
     "acc_tuned", "omp_target_tuned"),
    ("apsp n=1024", "rest_1472a61/rest_apsp_1024.json",
     "optimize", "omp_target_tuned"),
    ("iccg 128³", "rest_1472a61/rest_iccg_seed.json",
     "optimized_per_color", "omp_target_tuned"),
    ("iccg 128³, 16 teams × 8 threads", "rest_1472a61/rest_iccg_seed.json",
     "optimized_per_color", "omp_target_tuned",
     {"omp_file": "rest_1472a61/iccg_seed_teams_16x8.json", "omp_params": {"omp_teams": 16}}),
    ("vector triad 2^28", "launch_1472a61/launch_large.json",
     "triad_acc", "triad_omp_target_tuned"),
    ("vector triad 1024 floats (launch-bound)", "launch_1472a61/launch_tiny.json",
     "triad_acc", "triad_omp_target_tuned"),
)

GOAL = 2.0
TITLE = "OpenMP target / OpenACC, GCC 12, one H200 (lower is better)"


def fail(message):
    print(f"plot-directive-models: {message}", file=sys.stderr)
    sys.exit(2)


def find(path, results, variant, params):
    """The one result of VARIANT whose params include PARAMS; exits 2 when none or several."""
    matches = [r for r in results if isinstance(r, dict) and r.get("variant") == variant
               and all((r.get("params") or {}).get(k) == v for k, v in params.items())]
    wanted = variant + "".join(f" {k}={v}" for k, v in params.items())
    if not matches:
        fail(f"{path}: no result for variant {wanted}")
    # Two runs of one step in one file would make the ratio depend on which we picked.
    if len(matches) > 1:
        fail(f"{path}: {len(matches)} results for variant {wanted}; name its params in PAIRS")
    return matches[0]


def median(path, result):
    try:
        value = run_file.median_s(result)
    except (KeyError, TypeError, ValueError) as e:
        fail(f"{path}: {result.get('variant')}: no time_s.median ({type(e).__name__}: {e})")
    if not value > 0:
        fail(f"{path}: {result.get('variant')}: time_s.median is {value}, not a positive time")
    return value


def seconds(value):
    return f"{value * 1e3:.3g} ms" if value < 1 else f"{value:.3g} s"


def main(argv):
    args = argv[1:]
    if args and args[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0
    if len(args) > 2 or any(a.startswith("-") for a in args):
        fail("usage: plot-directive-models.py [RESULTS_DIR [OUT.svg]]")
    source = args[0] if len(args) > 0 else DEFAULT_RESULTS
    target = args[1] if len(args) > 1 else DEFAULT_TARGET
    if not os.path.isdir(source):
        fail(f"{source}: not a folder")
    if os.path.splitext(target)[1].lower() != ".svg":
        fail(f"{target}: expected a .svg file name")
    directory = os.path.dirname(os.path.abspath(target))
    if not os.path.isdir(directory) or not os.access(directory, os.W_OK):
        fail(f"{target}: cannot write there")

    # Every file and variant is checked before anything is drawn, so a bad table writes nothing.
    documents = {}
    rows, skipped = [], []
    for label, name, acc_variant, omp_variant, *extra in PAIRS:
        where = extra[0] if extra else {}
        acc_path = os.path.join(source, name)
        omp_path = os.path.join(source, where.get("omp_file", name))
        for path in (acc_path, omp_path):
            if path not in documents:
                documents[path] = run_file.load(path, fail)[1]
        acc = find(acc_path, documents[acc_path], acc_variant, {})
        omp = find(omp_path, documents[omp_path], omp_variant, where.get("omp_params", {}))
        bad = [f"{r.get('variant')} is {r.get('status')}" for r in (acc, omp)
               if r.get("status") != "verified"]
        if bad:
            print(f"plot-directive-models: {label}: left out, {', '.join(bad)}", file=sys.stderr)
            skipped.append(label)
            continue
        acc_time, omp_time = median(acc_path, acc), median(omp_path, omp)
        rows.append((label, acc_variant, acc_time, omp_variant, omp_time, omp_time / acc_time))
    if not rows:
        fail(f"{source}: no verified pair to draw")

    width = max(len(r[0]) for r in rows)
    print(f"{'problem':<{width}}  {'OpenACC':>10}  {'OpenMP':>10}  {'OpenMP/OpenACC':>14}")
    for label, _, acc_time, _, omp_time, ratio in rows:
        print(f"{label:<{width}}  {seconds(acc_time):>10}  {seconds(omp_time):>10}"
              f"  {ratio:>13.2f}x")

    import matplotlib

    matplotlib.use("Agg")
    # Fixed ids and no date, so that the same data gives the same file and a clean git diff.
    matplotlib.rcParams["svg.hashsalt"] = "acclab-directive-models"
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

    ratios = [r[5] for r in rows]
    fig, ax = plt.subplots(figsize=(8, 4))
    y = list(range(len(rows)))
    colours = ["#55a868" if r <= GOAL else "#c44e52" for r in ratios]
    # Bars grow from parity, so a step faster than OpenACC's would point left.
    ax.barh(y, [r - 1 for r in ratios], left=1, color=colours, height=0.6)
    ax.set_xscale("log")
    low = min(0.8, min(ratios) / 1.5)
    high = max(ratios) * 2.2  # room for the value printed past the longest bar
    ax.set_xlim(low, high)
    ticks = [t for t in (0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000) if low <= t <= high]
    ax.xaxis.set_major_locator(FixedLocator(ticks))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}×"))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_yticks(y)
    ax.set_yticklabels([r[0] for r in rows], fontsize=8)
    ax.invert_yaxis()  # the table's order, top to bottom
    ax.set_ylim(len(rows) - 0.5, -0.9)  # a little room above the first bar for the goal's label
    ax.axvline(1, color="black", linewidth=0.8)
    ax.axvline(GOAL, color="grey", linewidth=0.9, linestyle="--")
    ax.text(GOAL * 1.04, -0.75, "goal: within 2x", fontsize=8, color="grey", va="center")
    for yi, ratio in zip(y, ratios):
        ax.annotate(f"{ratio:.3g}×", (max(ratio, 1), yi), xytext=(3, 0),
                    textcoords="offset points", ha="left", va="center", fontsize=8)
    ax.set_xlabel("OpenMP target median time / OpenACC median time (log scale)", fontsize=9)
    ax.set_title(TITLE, fontsize=10)
    ax.tick_params(axis="x", labelsize=8)
    if skipped:
        fig.text(0.01, 0.01, "not drawn (not verified): " + "; ".join(skipped), fontsize=7,
                 color="grey")
    fig.tight_layout(rect=(0, 0.03 if skipped else 0, 1, 1))

    save_whole(fig, target, "svg", fail, metadata={"Date": None})
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
