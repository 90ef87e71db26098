"""The HTML page: the runs, a section a workload (ladder, roofline, steps), compare's table and
the provenance of every file."""
import json
import shlex

from reporthtml import roofline
from reporthtml.steps import derive_speedups, workloads_of
from reporthtml.values import esc, fixed, seconds_text
from run_file import number, text

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
    ceilings = roofline.ceilings_of(own_files)
    roofs = roofline.roofs_of(own_files, steps)
    out = [f'<section id="workload-{esc(name)}"><h2>{esc(name)}</h2>']
    out.append("<h3>Ladder</h3>")
    out.append('<p class="muted">Median time per run on a log scale (whiskers: the fastest and '
               "slowest timed run) and each step's fraction of the limit measured on its "
               "machine (GB/s over the copy bandwidth where the step ran).</p>")
    out.append(f'<div class="chart">{charts.ladder(steps, several_runs)}</div>')
    out.append("<h3>Roofline</h3>")
    chart = roofline.chart(charts, steps, ceilings, roofs, several_runs)
    out.append(f'<p class="muted">{roofline.caption(steps, ceilings, roofs, own_files)}</p>')
    if chart:
        out.append(f'<div class="chart">{chart}</div>')
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
               f"{esc(stats.get('min_reps'))} runs on a side); %limit: each run's share of its own "
               "machine's measured limit (docs/compare.md).</p></section>")
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
