#!/usr/bin/env python3
"""Exit 0 when two `tplan bench --out X.json` files hold the same records in the same order,
timing fields and peak memory aside (what --jobs and --mpi promise). Usage: same_records.py A B N
(N: the expected number of records)."""
import json
import sys

SKIP = {"time", "time_first", "maxrss_kb", "breakdown"}
a, b = (json.load(open(f))["runs"] for f in sys.argv[1:3])
strip = lambda runs: [{k: v for k, v in r.items() if k not in SKIP} for r in runs]
if len(a) != int(sys.argv[3]) or strip(a) != strip(b):
    sys.exit(f"records differ between {sys.argv[1]} and {sys.argv[2]}")
