#!/usr/bin/env python3
"""Prints acclab.run/1 JSON files as a compact table: python3 scripts/results-table.py FILE..."""
import json
import sys


def fmt(value, spec):
    return "-" if value is None else format(value, spec)


for path in sys.argv[1:]:
    doc = json.load(open(path))
    print(f"== {path}  limits {doc.get('limits')}")
    for r in doc["results"]:
        print(f"{r['variant']:<18} {r['status']:<11} median {fmt(r['time_s']['median'], '.4g'):>9} s"
              f"  GB/s {fmt(r['gbytes_per_s'], '9.1f')}  limit {fmt(r['limit_fraction'], '.3f'):>6}"
              f"  xfer {fmt(r['transfer_share'], '.3f'):>6}"
              f"  vs1 {fmt(r.get('speedup_vs_first'), '.1f'):>6}"
              f"  vsprev {fmt(r.get('speedup_vs_previous'), '.2f'):>6}  {r['params']}")
