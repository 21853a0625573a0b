#!/usr/bin/env python3
# critical-path-reference.py: figures of each step read straight from a
# trace file, for test-critical-path. One line a step:
#   NAME DATALOADER_NS [GPU_END_NS BUSY_NS]
# DATALOADER_NS: the time in enumerate(DataLoader) ranges inside the
# step's own range. For a .kscope recording also GPU_END_NS, the end of
# the last GPU work launched in the step's range (by correlation id, on
# the file's clock), and BUSY_NS, the union of the GPU work between the
# previous step's GPU end (or the step's start) and this one's.
#
# With --hta-critical FILE (HTA's overlaid critical-path output): the
# time of the CUDA runtime calls HTA marks critical, by name:
#   NAME NS
#
# Copyright 2026 The Kinescope authors
# SPDX-License-Identifier: GPL-3.0-or-later

import gzip
import json
import sqlite3
import sys


def overlap(ranges, s0, s1):
    total = 0
    for e0, e1 in ranges:
        if e0 < s1 and e1 > s0:
            total += min(e1, s1) - max(e0, s0)
    return total


def union(ranges):
    total, end = 0, None
    for s, e in sorted(ranges):
        if end is None or s > end:
            total += e - s
            end = e
        elif e > end:
            total += e - end
            end = e
    return total


path = sys.argv[-1]
if sys.argv[1] == '--hta-critical':
    with gzip.open(path, 'rt') as f:
        events = [e for e in json.load(f)['traceEvents'] if e.get('ph') == 'X']
    times = {}
    for e in events:
        if e.get('cat') == 'cuda_runtime' and e.get('args', {}).get('critical') == 1:
            times[e['name']] = times.get(e['name'], 0) + e['dur']
    for name, us in sorted(times.items()):
        print(name, round(us * 1000))
elif path.endswith('.kscope'):
    db = sqlite3.connect(path)
    rows = db.execute('SELECT n.start, n.end, coalesce(n.text, s.value) FROM NVTX_EVENTS n '
                      'LEFT JOIN StringIds s ON s.id = n.textId WHERE n.end IS NOT NULL').fetchall()
    steps = sorted(r for r in rows if r[2] and r[2].startswith('step '))
    loaders = [(r[0], r[1]) for r in rows if r[2] and r[2].startswith('enumerate(DataLoader)')]
    calls = db.execute('SELECT start, correlationId FROM CUPTI_ACTIVITY_KIND_RUNTIME').fetchall()
    gpu = []
    for table in ('KERNEL', 'MEMCPY', 'MEMSET'):
        gpu += db.execute('SELECT start, end, correlationId FROM CUPTI_ACTIVITY_KIND_' + table).fetchall()
    end_of = {}
    for s, e, c in gpu:
        end_of[c] = max(end_of.get(c, e), e)
    prev_end = None
    for s0, s1, name in steps:
        gpu_end = max([end_of[c] for t, c in calls if s0 <= t < s1 and c in end_of] + [s1])
        w0 = max(s0, prev_end) if prev_end is not None else s0
        busy = union([(max(s, w0), min(e, gpu_end)) for s, e, c in gpu if s < gpu_end and e > w0])
        print(name.replace(' ', '_'), round(overlap(loaders, s0, s1)), gpu_end, busy)
        prev_end = gpu_end
else:
    opener = gzip.open if path.endswith('.gz') else open
    with opener(path, 'rt') as f:
        events = [e for e in json.load(f)['traceEvents'] if e.get('ph') == 'X']
    steps = [e for e in events if e.get('cat') == 'user_annotation' and e['name'].startswith('ProfilerStep#')]
    loaders = [(e['ts'], e['ts'] + e['dur']) for e in events
               if e.get('cat') != 'gpu_user_annotation' and e['name'].startswith('enumerate(DataLoader)')]
    for s in steps:
        print(s['name'], round(overlap(loaders, s['ts'], s['ts'] + s['dur']) * 1000))
