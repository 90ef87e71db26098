#!/usr/bin/env python3
"""Prints acclab.run/1 JSON files as a compact table: python3 scripts/results-table.py FILE..."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_file  # noqa: E402


def fail(message):
    print(f"results-table: {message}", file=sys.stderr)
    sys.exit(2)


def fmt(value, spec):
    return "-" if value is None else format(value, spec)


def median_or_none(result):
    """The result's median, None where it has none (an unavailable step)."""
    try:
        return run_file.median_s(result)
    except (KeyError, TypeError, ValueError):
        return None


for path in sys.argv[1:]:
    doc, results = run_file.load(path, fail)
    print(f"== {path}  limits {doc.get('limits')}")
    for r in results:
        print(f"{r['variant']:<18} {r['status']:<11} median {fmt(median_or_none(r), '.4g'):>9} s"
              f"  GB/s {fmt(r['gbytes_per_s'], '9.1f')}  limit {fmt(r['limit_fraction'], '.3f'):>6}"
              f"  xfer {fmt(r['transfer_share'], '.3f'):>6}"
              f"  vs1 {fmt(r.get('speedup_vs_first'), '.1f'):>6}"
              f"  vsprev {fmt(r.get('speedup_vs_previous'), '.2f'):>6}  {r['params']}")
