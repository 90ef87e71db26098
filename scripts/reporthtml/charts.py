"""matplotlib's figures as inline SVG, and the ladder chart (the roofline's is roofline.chart)."""
import io
import re

from reporthtml.values import seconds_text

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
