#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Step-time table from train.py --result files.

    overhead.py FIRST LAST LABEL=RESULT.json...

The first file is the baseline (no profiler); steps FIRST..LAST-1 count."""

import json
import statistics
import sys

first, last = int(sys.argv[1]), int(sys.argv[2])
base = None
print("| run | median step (ms) | mean step (ms) | median vs. no profiler |")
print("|---|---|---|---|")
for arg in sys.argv[3:]:
    label, path = arg.rsplit("=", 1)
    t = json.load(open(path))["step_times"][first:last]
    med = statistics.median(t) * 1e3
    mean = statistics.fmean(t) * 1e3
    if base is None:
        base = med
    print(f"| {label} | {med:.3f} | {mean:.3f} | {100 * (med / base - 1):+.1f} % |")
