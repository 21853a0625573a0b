#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Step-time table from train.py --result files: plain, recorded, torch.profiler.

    overhead.py PLAIN.json RECORDED.json TORCHPROF.json FIRST LAST"""

import json
import statistics
import sys

names = ["no profiler", "kinescope-cli record", "torch.profiler (CPU+CUDA)"]
first, last = int(sys.argv[4]), int(sys.argv[5])
base = None
print(f"| run | median step (ms) | mean step (ms) | vs. no profiler |")
print(f"|---|---|---|---|")
for name, path in zip(names, sys.argv[1:4]):
    t = json.load(open(path))["step_times"][first:last]
    med = statistics.median(t) * 1e3
    mean = statistics.fmean(t) * 1e3
    if base is None:
        base = med
    print(f"| {name} | {med:.3f} | {mean:.3f} | {100 * (med / base - 1):+.1f} % |")
