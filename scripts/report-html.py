#!/usr/bin/python3
"""The HTML page of `acclab report` and of `acclab run/ladder --report`: one self-contained file
whose charts matplotlib draws as inline SVG, with nothing loaded from elsewhere (no script, no
style sheet, no font, no image by address), so that it opens offline and in a mail attachment.

usage: report-html.py < INPUT.json > PAGE.html   (acclab runs it; users run acclab report)
       report-html.py --check                     exit 0 where matplotlib can be imported

acclab reads and checks the result files, compares them with acclab compare's statistics, and
writes on this script's stdin one JSON document:
  {"files": [{"label": "A", "path": "...", "document": <acclab.run/1>,
              "gpu_peak_gflops": <peak_gflops of a card acclab knows, where the file has none>},
             ...],
   "comparison": <acclab.compare/1> or null, "not_compared": "why there is no comparison",
   "command_line": [...]}
The page goes to stdout; acclab writes it to its output whole or not at all. A failure here is
one line on stderr and exit status 1.
"""
import json
import os
import sys

# The page's parts live in reporthtml/ beside this script (installed beside it too:
# cmake/AcclabInstall.cmake).
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from reporthtml.charts import Charts  # noqa: E402
from reporthtml.page import page  # noqa: E402


def fail(message):
    print(f"report-html: {message}", file=sys.stderr)
    sys.exit(1)


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
