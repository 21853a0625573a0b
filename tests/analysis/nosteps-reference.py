#!/usr/bin/env python3
# The steps of a torch.profiler trace that marks none, recomputed from the
# raw JSON without Kinescope: on the thread that launched the most GPU
# work, each outermost enumerate(DataLoader)...__next__ opens an iteration
# that runs to the next one (the last to the end of the thread's outermost
# work); then the TensorBoard plugin's fit: a step starts no earlier than
# the previous one ends and ends no earlier than the GPU work its process
# launched inside it. Prints what test-warmup asserts, in ns from the
# trace's first event.
#
#   python3 tests/analysis/nosteps-reference.py tests/data/nosteps_slow.pt.trace.json.gz

import gzip
import json
import sys
from collections import Counter


def ns(us):
    return round(us * 1000)


def main(path):
    events = [e for e in json.load(gzip.open(path))['traceEvents'] if e.get('ph') == 'X']
    t0 = min(ns(e['ts']) for e in events)
    launches = Counter(e['tid'] for e in events if e.get('cat') in ('cuda_runtime', 'cuda_driver')
                       and 'correlation' in e.get('args', {}))
    gpu_end = {}
    for e in events:
        if e.get('cat') in ('kernel', 'gpu_memcpy', 'gpu_memset'):
            c = e['args']['correlation']
            gpu_end[c] = max(gpu_end.get(c, 0), ns(e['ts']) + ns(e['dur']))
    calls = [(ns(e['ts']), e['args']['correlation']) for e in events
             if e.get('cat') in ('cuda_runtime', 'cuda_driver') and e['args'].get('correlation') in gpu_end]

    main_tid = launches.most_common(1)[0][0]
    cpu = sorted((ns(e['ts']), ns(e['ts']) + ns(e['dur']), e['name']) for e in events
                 if e['tid'] == main_tid and e.get('cat') in ('cpu_op', 'user_annotation', 'cuda_runtime',
                                                              'cuda_driver', 'python_function'))
    outer, end = [], None
    for s, e, n in cpu:
        if end is None or s >= end:
            outer.append((s, e, n))
            end = e
        else:
            end = max(end, e)
    last_end = max(e for _, e, _ in outer)
    anchors = [(s, e) for s, e, n in outer if n.startswith('enumerate(DataLoader)')]
    spans = []
    for i, (s, e) in enumerate(anchors):
        spans.append((s, anchors[i + 1][0] if i + 1 < len(anchors) else max(last_end, e)))

    prev = None
    for i, (hs, he) in enumerate(spans):
        end = max([he] + [gpu_end[c] for ts, c in calls if hs <= ts < he])
        start = hs if prev is None else max(hs, prev)
        prev = max(end, start)
        print(f'step {i}: start {start - t0} end {prev - t0} dur {prev - start}')


if __name__ == '__main__':
    main(sys.argv[1])
