#!/usr/bin/env python3
"""Checks the structure of an acclab report page against the result files it was made from.

usage: report_page_check.py PAGE.html RUN.json [MORE.json ...]

- every result of every file has its row in the page's step tables (data-run = the file's
  letter, data-workload, data-variant), and no row is there that the files do not hold;
- every workload has its section with its charts (inline <svg>): the ladder, and one roofline
  shared by all the files where a verified step has a rate;
- every inline <svg> is well-formed XML (xml.etree parses it);
- nothing is loaded from the network: no attribute holds an http(s) address except an XML
  namespace declaration (xmlns, xmlns:*), which names a vocabulary and is never fetched; no
  <script>, <link>, <img>, <iframe>, <object> or <embed>; no url() or @import in styles;
- in every roofline, no two of its small labels (points, bandwidths, roofs: 7 px text)
  overlap, each taken as 0.5 em a character wide;
- with several files, the comparison section.
Prints one line per problem and exits 1 when there is one; prints "ok: ..." and exits 0 otherwise.
"""
import collections
import html
import html.parser
import json
import re
import sys
import xml.etree.ElementTree as ET

LOADING_TAGS = {"script", "link", "img", "iframe", "object", "embed", "audio", "video",
                "source", "track", "frame", "base"}


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.rows = collections.Counter()  # (run, workload, variant) -> rows
        self.sections = []  # ids of <section>s, in order
        self.svgs_in = collections.Counter()  # section id -> <svg> elements in it
        self.problems = []
        self.section = None
        self.in_style = False

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if value is None:
                continue
            namespace_declaration = name == "xmlns" or name.startswith("xmlns:")
            if re.search(r"https?://", value, re.I) and not namespace_declaration:
                self.problems.append(f"<{tag} {name}=\"{value[:80]}\">: an http(s) address")
            if name == "style" and re.search(r"url\s*\(|@import", value, re.I):
                self.problems.append(f"<{tag} style=...>: url() or @import")
        if tag in LOADING_TAGS:
            self.problems.append(f"<{tag}>: a page that must load nothing has one")
        attributes = dict(attrs)
        if tag == "section":
            self.section = attributes.get("id")
            self.sections.append(self.section)
        if tag == "svg":
            self.svgs_in[self.section] += 1
        if tag == "tr" and "data-run" in attributes:
            self.rows[(attributes["data-run"], attributes.get("data-workload"),
                       attributes.get("data-variant"))] += 1
        self.in_style = tag == "style"

    def handle_endtag(self, tag):
        if tag == "section":
            self.section = None
        if tag == "style":
            self.in_style = False

    def handle_data(self, data):
        if self.in_style and re.search(r"url\s*\(|@import", data, re.I):
            self.problems.append("<style>: url() or @import")


LABEL = re.compile(r'<text style="font: ([0-9.]+)px[^;"]*; text-anchor: (\w+)" '
                   r'x="([-0-9.e]+)" y="([-0-9.e]+)"[^>]*>([^<]*)</text>')


def overlapping_labels(svg):
    """The pairs of 7 px labels whose boxes (0.5 em a character wide, 0.7 em tall above the
    baseline) overlap in one chart."""
    boxes = []
    for size, anchor, x, y, words in LABEL.findall(svg):
        size, x, y = float(size), float(x), float(y)
        if size != 7:
            continue
        words = html.unescape(words)
        width = 0.5 * size * len(words)
        left = x - width if anchor == "end" else x - width / 2 if anchor == "middle" else x
        boxes.append((words, left, y - 0.7 * size, left + width, y))
    problems = []
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            if a[1] < b[3] and b[1] < a[3] and a[2] < b[4] and b[2] < a[4]:
                problems.append(f"labels overlap: {a[0]!r} at ({a[1]:.1f}, {a[4]:.1f}) and "
                                f"{b[0]!r} at ({b[1]:.1f}, {b[4]:.1f})")
    return problems


def main(argv):
    if len(argv) < 3:
        print("usage: report_page_check.py PAGE.html RUN.json [MORE.json ...]", file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        text = f.read()
    documents = []
    for path in argv[2:]:
        with open(path, encoding="utf-8") as f:
            documents.append(json.load(f))
    page = Page()
    page.feed(text)
    page.close()
    problems = list(page.problems)

    if not text.lstrip().lower().startswith("<!doctype html>"):
        problems.append("the page does not start with <!DOCTYPE html>")
    if not text.rstrip().endswith("</html>"):
        problems.append("the page does not end with </html>")

    # Every chart well-formed: matplotlib's <svg> elements hold no nested <svg>.
    svgs = re.findall(r"<svg\b.*?</svg>", text, flags=re.S)
    if len(svgs) != len(re.findall(r"<svg\b", text)):
        problems.append("an <svg> element without its end")
    for k, svg in enumerate(svgs):
        try:
            ET.fromstring(svg)
        except ET.ParseError as e:
            problems.append(f"chart {k + 1}: not well-formed XML ({e})")

    for k, svg in enumerate(svgs):
        if "arithmetic intensity" in svg or "bandwidth axis only" in svg:
            problems += [f"chart {k + 1}: {p}" for p in overlapping_labels(svg)]

    expected = collections.Counter()
    workloads = []
    for k, document in enumerate(documents):
        label = chr(ord("A") + k)
        for r in document["results"]:
            expected[(label, r["workload"], r["variant"])] += 1
            if r["workload"] not in workloads:
                workloads.append(r["workload"])
    for key in expected:
        if page.rows[key] != expected[key]:
            problems.append(f"run {key[0]}: {key[1]}/{key[2]}: {page.rows[key]} rows in the page, "
                            f"{expected[key]} results in the file")
    for key in page.rows:
        if key not in expected:
            problems.append(f"a row of {key} that no file holds")

    for workload in workloads:
        section = f"workload-{workload}"
        if section not in page.sections:
            problems.append(f"no section for {workload}")
            continue
        rated = any(r["workload"] == workload and r["status"] == "verified"
                    and (r.get("gbytes_per_s") or 0) > 0
                    for d in documents for r in d["results"])
        charts = 2 if rated else 1
        if page.svgs_in[section] != charts:
            problems.append(f"{workload}: {page.svgs_in[section]} charts, expected {charts} (the "
                            "ladder" + (" and one roofline for every file)" if rated else ")"))
    if len(documents) > 1 and "comparison" not in page.sections:
        problems.append("several files and no comparison section")
    if "provenance" not in page.sections:
        problems.append("no provenance section")

    for problem in problems:
        print(f"report_page_check: {argv[1]}: {problem}")
    if problems:
        return 1
    print(f"ok: {argv[1]}: {sum(expected.values())} steps, {len(svgs)} charts, "
          f"{len(workloads)} workload(s), nothing loaded from the network")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
