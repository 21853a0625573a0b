#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Numbers the TensorBoard plugin, PyTorch and HTA get from real Kineto
# traces, recomputed here from the raw JSON with plain Python and each
# peer's rule, against `kinescope-cli stats --format json`:
#
#  - a cudaGraphLaunch launches every operation of its graph (one
#    correlation id): operators' device self time, queue length, and a
#    .kscope round trip;
#  - the first step starts after GPU work no step launched
#    (the plugin's _find_device_steps);
#  - an operator nested alone in one of its name is one call (PyTorch's
#    _remove_dup_nodes);
#  - copy rates are Kineto's "memory bandwidth (GB/s)", the mean leaves
#    copies without a rate out;
#  - c10d:: spans are no collectives in a trace with GPU work.
#
# Usage: test-peer-numbers.py KINESCOPE_CLI
# The corpus comes from KS_SHARED_DIR (../shared); cases skip without it.

import decimal
import functools
import gzip
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'install'))
from ks_tap import finish, ok, skip  # noqa: E402

CLI = sys.argv[1]
SHARED = os.environ.get('KS_SHARED_DIR', os.path.join(os.path.dirname(__file__), '..', '..', '..', 'shared'))
FIXTURES = os.environ.get('KS_FIXTURES_DIR', os.path.join(os.path.dirname(__file__), '..', 'data'))
GPU_CATS = ('kernel', 'gpu_memcpy', 'gpu_memset')
RUNTIME_CATS = ('cuda_runtime', 'cuda_driver')


def ns(v):
    return int((decimal.Decimal(v) * 1000).quantize(decimal.Decimal(1), rounding=decimal.ROUND_HALF_UP))


@functools.lru_cache(maxsize=None)
def load(path):
    with gzip.open(path, 'rt') as f:
        data = json.load(f, parse_float=decimal.Decimal)
    xs = []
    for i, ev in enumerate(data['traceEvents']):
        if ev.get('ph') != 'X':
            continue
        s = ns(ev['ts'])
        xs.append(dict(ev, s=s, e=s + ns(ev.get('dur', 0)), i=i))
    return xs


def stats(path, report, *extra):
    out = subprocess.run([CLI, 'stats', '--format', 'json', '--limit', '0', '--report', report, *extra, path],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def corpus(*parts):
    path = os.path.join(SHARED, 'corpus', *parts)
    return path if os.path.isfile(path) else None


def correlation(x):
    return x.get('args', {}).get('correlation')


def by_correlation(xs):
    gpu = {}
    for x in xs:
        if x.get('cat') in GPU_CATS:
            gpu.setdefault(correlation(x), []).append(x)
    return gpu


def device_self(xs):
    """Per operator name, the GPU time of the work its CUDA calls
    launched directly (it is the innermost cpu_op around the call), every
    operation with the call's correlation id counting."""
    gpu = by_correlation(xs)
    ops = {}
    for x in xs:
        if x.get('cat') == 'cpu_op':
            ops.setdefault((x['pid'], x['tid']), []).append(x)
    out = {}
    for r in xs:
        if r.get('cat') not in RUNTIME_CATS or correlation(r) not in gpu:
            continue
        around = [o for o in ops.get((r['pid'], r['tid']), []) if o['s'] <= r['s'] and r['e'] <= o['e']]
        if not around:
            continue
        # of equal spans the later in the file is the inner one
        inner = min(around, key=lambda o: (o['e'] - o['s'], -o['s'], -o['i']))
        out[inner['name']] = out.get(inner['name'], 0) + sum(g['e'] - g['s'] for g in gpu[correlation(r)])
    return out


def test_graph_launch():
    path = corpus('hta', 'trace_diff', 'test', 'test.json.gz')
    if path is None:
        skip('graph launch: the corpus (KS_SHARED_DIR/corpus/hta) is not available')
        return
    xs = load(path)
    graphs = [x for x in xs if x.get('name') == 'cudaGraphLaunch']
    gpu = by_correlation(xs)
    ok(len(graphs) == 12 and all(len(gpu.get(correlation(g), [])) > 1 for g in graphs),
       'trace_diff test: 12 graph launches, each with several operations of its id')
    want = device_self(xs)
    ops = {o['name']: o for o in stats(path, 'operators')['operators']}
    got = ops['CompiledFunctionBackward']['device_self_ns']
    ok(want['CompiledFunctionBackward'] == 171432000 and got == want['CompiledFunctionBackward'],
       'CompiledFunctionBackward: 171.432 ms of device self time', 'got %d, recomputed %d' % (got, want['CompiledFunctionBackward']))
    wrong = [(n, ops.get(n, {}).get('device_self_ns'), v) for n, v in want.items()
             if ops.get(n, {}).get('device_self_ns') != v]
    ok(not wrong, 'every operator\'s device self time as recomputed', repr(wrong[:5]))


def test_graph_queue_and_kscope():
    path = corpus('hta', 'negative_queue_length_values_check', 'rank0.json.gz')
    if path is None:
        skip('graph queue: the corpus (KS_SHARED_DIR/corpus/hta) is not available')
        return
    xs = load(path)
    calls = {correlation(r) for r in xs if r.get('cat') in RUNTIME_CATS and correlation(r) is not None}
    launched = {}
    for g in xs:
        if g.get('cat') in GPU_CATS and correlation(g) in calls:
            key = (g['args'].get('device'), g['args'].get('stream'))
            launched[key] = launched.get(key, 0) + 1
    queues = {(q['device'], q['stream']): q['ops'] for q in stats(path, 'queue')['streams']}
    ok(queues == launched, 'negq rank 0: the queue counts every operation of a graph', '%r != %r' % (queues, launched))

    with tempfile.TemporaryDirectory() as tmp:
        kscope = os.path.join(tmp, 'rank0.kscope')
        subprocess.run([CLI, 'convert', path, kscope], check=True, capture_output=True)
        info = [json.loads(subprocess.run([CLI, 'info', '--format', 'json', p], check=True, capture_output=True,
                                          text=True).stdout)['counts']['launch_flow'] for p in (path, kscope)]
        ok(info == [sum(launched.values())] * 2, 'negq rank 0: as many launch flows in JSON and .kscope as operations',
           '%r, %d operations' % (info, sum(launched.values())))
        again = {(q['device'], q['stream']): q['ops'] for q in stats(kscope, 'queue')['streams']}
        ok(again == launched, 'negq rank 0: the .kscope keeps the graph operations\' launches')


def test_graph_launch_h200():
    """torch.compile(mode="reduce-overhead") on the H200 (tests/gpu/graphs.py):
    two cudaGraphLaunch calls whose graphs hold 10 and 39 kernels."""
    path = os.path.join(FIXTURES, 'compiled_graphs.pt.trace.json.gz')
    xs = load(path)
    gpu = by_correlation(xs)
    graphs = [x for x in xs if x.get('name') == 'cudaGraphLaunch']
    sizes = sorted(len(gpu.get(correlation(g), [])) for g in graphs)
    ok(sizes == [10, 39], 'compiled_graphs: two graph launches of 10 and 39 kernels', repr(sizes))
    calls = {correlation(r) for r in xs if r.get('cat') in RUNTIME_CATS and correlation(r) is not None}
    launched = sum(len(v) for c, v in gpu.items() if c in calls)
    info = json.loads(subprocess.run([CLI, 'info', '--format', 'json', path], check=True, capture_output=True,
                                     text=True).stdout)['counts']
    ok(info['launch_flow'] == launched == 53, 'compiled_graphs: every kernel is joined to its launch',
       '%d flows, %d launched' % (info['launch_flow'], launched))
    queue = stats(path, 'queue')['streams']
    ok(len(queue) == 1 and queue[0]['ops'] == 53 and queue[0]['max'] == 39,
       'compiled_graphs: the queue holds a whole graph at once (39)', repr(queue))


def plugin_steps(xs):
    """The TensorBoard plugin's step spans (_find_device_steps and
    _update_steps_duration), in ns."""
    steps = sorted((x for x in xs if x.get('cat') == 'user_annotation' and x['name'].startswith('ProfilerStep#')),
                   key=lambda x: x['s'])
    gpu = by_correlation(xs)
    matched, device = set(), [None] * len(steps)
    for r in xs:
        if r.get('cat') not in RUNTIME_CATS:
            continue
        for i, st in enumerate(steps):
            if st['s'] <= r['s'] and r['e'] <= st['e']:
                for g in gpu.get(correlation(r), []):
                    matched.add(id(g))
                    lo, hi = device[i] or (g['s'], g['e'])
                    device[i] = (min(lo, g['s']), max(hi, g['e']))
                break
    prev = steps[0]['s']
    if device[0] is not None:
        for g in (g for gs in gpu.values() for g in gs):
            if id(g) not in matched and g['e'] < device[0][0]:
                prev = max(prev, g['e'])
    out = []
    for i, st in enumerate(steps):
        start = max(prev, st['s'])
        end = max(st['e'] if device[i] is None else max(st['e'], device[i][1]), start)
        out.append((st['name'], end - start))
        prev = end
    return out


def test_first_step():
    for parts, first in ((('hta', 'negative_queue_length_values_check', 'rank0.json.gz'), 368411000),
                         (('hta', 'trace_diff', 'test', 'test.json.gz'), 156646000)):
        path = corpus(*parts)
        if path is None:
            skip('first step: the corpus (KS_SHARED_DIR/corpus/hta) is not available')
            continue
        want = plugin_steps(load(path))
        got = [(s['name'], s['dur_ns']) for s in stats(path, 'steps')['steps']]
        ok(want[0][1] == first and got == want, '%s: the plugin\'s steps, the first %.3f ms' % (parts[-2], first / 1e6),
           'got %r\nrecomputed %r' % (got, want))


def dedup_calls(xs):
    """Calls per operator name, an operator that is the only child of one
    of its name being one call with it (PyTorch's _remove_dup_nodes)."""
    threads = {}
    for x in xs:
        if x.get('cat') not in ('ac2g',):
            threads.setdefault((x['pid'], x['tid']), []).append(x)
    calls = {}
    for evs in threads.values():
        evs.sort(key=lambda x: (x['s'], -x['e']))
        stack, children, parent = [], {}, {}
        for x in evs:
            while stack and stack[-1]['e'] <= x['s']:
                stack.pop()
            if stack:
                parent[id(x)] = stack[-1]
                children[id(stack[-1])] = children.get(id(stack[-1]), 0) + 1
            stack.append(x)
        for x in evs:
            if x.get('cat') != 'cpu_op':
                continue
            p = parent.get(id(x))
            if p is not None and p.get('cat') == 'cpu_op' and p['name'] == x['name'] and children[id(p)] == 1:
                continue
            calls[x['name']] = calls.get(x['name'], 0) + 1
    return calls


def test_nested_operator():
    path = os.path.join(FIXTURES, 'seed_cnn.pt.trace.json.gz')
    xs = load(path)
    want = dedup_calls(xs)
    ops = {o['name']: o for o in stats(path, 'operators')['operators']}
    div = ops['aten::div']
    ok(want['aten::div'] == 3 and div['calls'] == 3, 'seed_cnn: aten::div in aten::div is 3 calls, not 6')
    ok(div['device_total_ns'] == 122912 and div['device_total_ns'] == device_self(xs)['aten::div'],
       'seed_cnn: aten::div\'s 122.9 µs of device time counted once', repr(div))
    wrong = [(n, ops.get(n, {}).get('calls'), c) for n, c in want.items() if ops.get(n, {}).get('calls') != c]
    ok(not wrong, 'seed_cnn: every operator\'s calls as PyTorch counts them', repr(wrong[:5]))


def test_copy_rates():
    path = corpus('hta', 'negative_queue_length_values_check', 'rank0.json.gz')
    if path is None:
        skip('copy rates: the corpus (KS_SHARED_DIR/corpus/hta) is not available')
    else:
        copies = [x for x in load(path) if x.get('cat') == 'gpu_memcpy']
        dtod = max(float(x['args']['memory bandwidth (GB/s)']) for x in copies if 'DtoD' in x['name'])
        kinds = {k['kind']: k for k in stats(path, 'memcpy-bandwidth')['kinds']}
        ok(round(dtod, 2) == 865.16 and abs(kinds['DtoD']['max_gbps'] - dtod) < 1e-4,
           'negq rank 0: the fastest DtoD copy at Kineto\'s 865.16 GB/s', '%r vs %r' % (kinds['DtoD'], dtod))

    path = corpus('hta', 'with_gpu_user_annotation', 'step_based_trace_2543932.json.gz')
    if path is None:
        skip('copy rates: the corpus (KS_SHARED_DIR/corpus/hta) is not available')
        return
    copies = [x for x in load(path) if x.get('cat') == 'gpu_memcpy']
    rates = [float(x['args']['memory bandwidth (GB/s)']) for x in copies]
    nbytes = sum(x['args']['bytes'] for x in copies)
    mean = nbytes / sum(x['args']['bytes'] / r for x, r in zip(copies, rates))
    report = stats(path, 'memcpy-bandwidth')
    kind = report['kinds'][0]
    ok(sum(1 for x in copies if x['e'] == x['s']) == 9 and abs(kind['mean_gbps'] - mean) < 1e-4
       and abs(kind['max_gbps'] - max(rates)) < 1e-4 and kind['mean_gbps'] <= kind['max_gbps'],
       'with_gpu_user_annotation: 9 copies of 0 µs, the mean below the fastest copy', '%r, mean %r' % (kind, mean))
    ok([round(c['gbps'], 4) for c in report['copies']] == [round(r, 4) for r in rates],
       'with_gpu_user_annotation: each copy at Kineto\'s rate')


def test_c10d_without_nccl():
    path = corpus('hta', 'ns_resolution_trace', 'rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz')
    if path is None:
        skip('c10d: the corpus (KS_SHARED_DIR/corpus/hta) is not available')
        return
    xs = load(path)
    nccl = [x for x in xs if x.get('cat') == 'kernel' and x['name'].startswith(('ncclKernel_', 'ncclDevKernel_'))]
    c10d = [x for x in xs if x['name'].startswith('c10d::')]
    got = stats(path, 'comms')['collectives']
    ok(not nccl and len(c10d) == 35 and any(x.get('cat') == 'kernel' for x in xs) and got == [],
       'ns_resolution_trace: 35 c10d:: spans, GPU work, no NCCL kernel: no collectives', repr(got[:3]))


test_graph_launch()
test_graph_launch_h200()
test_graph_queue_and_kscope()
test_first_step()
test_nested_operator()
test_copy_rates()
test_c10d_without_nccl()
finish()
