#!/usr/bin/env python3
# critical-path-reference.py: the time in enumerate(DataLoader) slices of
# each ProfilerStep of a Kineto trace, read straight from the file, for
# test-critical-path: "NAME NS" a line.
#
# Copyright 2026 The Kinescope authors
# SPDX-License-Identifier: GPL-3.0-or-later

import gzip
import json
import sys

path = sys.argv[1]
opener = gzip.open if path.endswith('.gz') else open
with opener(path, 'rt') as f:
    events = [e for e in json.load(f)['traceEvents'] if e.get('ph') == 'X']

steps = [e for e in events if e.get('cat') == 'user_annotation' and e['name'].startswith('ProfilerStep#')]
loaders = [e for e in events if e.get('cat') != 'gpu_user_annotation' and e['name'].startswith('enumerate(DataLoader)')]
for s in steps:
    s0, s1 = s['ts'], s['ts'] + s['dur']
    total = 0.0
    for e in loaders:
        e0, e1 = e['ts'], e['ts'] + e['dur']
        if e0 < s1 and e1 > s0:
            total += min(e1, s1) - max(e0, s0)
    print(s['name'], round(total * 1000))
