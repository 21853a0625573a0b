#!/usr/bin/env python3
# The warm-up of a kinescope-cli recording, recomputed from its SQLite
# tables without Kinescope: the NVTX "step N" ranges, each ended where the
# GPU work launched inside it ends (the TensorBoard plugin's rule), the
# median of the steps after the first, the leading steps over twice it
# whose excess goes for at least 10 % to one-time CUDA calls, and that
# one-time work per cause. Prints the numbers test-analysis-fixtures and
# test-cli-stats assert.
#
#   python3 tests/analysis/warmup-reference.py tests/data/small_mlp_60steps.kscope

import re
import sqlite3
import statistics
import sys

CAUSES = {
    'CUDA module loading': ('cuModuleLoad', 'cuLibraryLoad', 'cuModuleGetFunction', 'cuModuleGetGlobal',
                            'cuLibraryGetKernel', 'cuLibraryGetModule', 'cuKernelGetFunction',
                            'cudaGetFuncBySymbol', 'cuLinkComplete', 'cuLinkAddData'),
    'CUDA context and library initialisation': ('cuInit', 'cuDevicePrimaryCtxRetain', 'cuCtxCreate',
                                                'cudaSetDevice', 'cublasCreate', 'cublasLtCreate',
                                                'cudnnCreate', 'cusparseCreate', 'cusolverDnCreate',
                                                'cufftPlan'),
    'NCCL initialisation': ('ncclCommInit', 'ncclCommSplit', 'ncclGetUniqueId'),
    'Memory allocation': ('cudaMalloc', 'cuMemAlloc', 'cuMemCreate', 'cuMemMap', 'cuMemAddressReserve',
                          'cudaHostAlloc', 'cuMemHostAlloc', 'cudaHostRegister', 'cuMemHostRegister'),
}


def union_within(ranges, t0, t1):
    total, cur_s, cur_e = 0, None, None
    for s, e in sorted((max(s, t0), min(e, t1)) for s, e in ranges if e > t0 and s < t1):
        if cur_e is None or s > cur_e:
            if cur_e is not None:
                total += cur_e - cur_s
            cur_s, cur_e = s, e
        else:
            cur_e = max(cur_e, e)
    if cur_e is not None:
        total += cur_e - cur_s
    return total


def main(path):
    db = sqlite3.connect(path)
    names = dict(db.execute('SELECT id, value FROM StringIds'))
    steps = sorted((s, e, t) for s, e, t in db.execute('SELECT start, end, text FROM NVTX_EVENTS')
                   if t and re.fullmatch(r'step \d+', t))
    calls = list(db.execute('SELECT start, end, nameId, correlationId FROM CUPTI_ACTIVITY_KIND_RUNTIME'))
    gpu_end = {}
    for table in ('KERNEL', 'MEMCPY', 'MEMSET'):
        for corr, end in db.execute(f'SELECT correlationId, end FROM CUPTI_ACTIVITY_KIND_{table}'):
            gpu_end[corr] = max(gpu_end.get(corr, end), end)

    spans, prev = [], None
    for s, e, name in steps:
        end = e
        for cs, ce, _, corr in calls:
            if s <= cs < e and corr in gpu_end:
                end = max(end, gpu_end[corr])
        start = s if prev is None else max(s, prev)
        spans.append((name, start, max(end, start)))
        prev = spans[-1][2]

    durs = [e - s for _, s, e in spans]
    median = statistics.median_low(durs[1:])
    one_time = {c: [(s, e) for s, e, n, _ in calls if names[n].startswith(p)] for c, p in CAUSES.items()}
    every = [r for rs in one_time.values() for r in rs]
    warm = []
    for i in range(len(spans) // 2):
        name, s, e = spans[i]
        if e - s <= 2 * median or union_within(every, s, e) < 0.10 * (e - s - median):
            break
        warm.append(i)
    print('steps', len(spans), 'median of steps 1.. ', median)
    print('warm-up', [spans[i][0] for i in warm], 'dur_ns', sum(durs[i] for i in warm))
    for c, rs in one_time.items():
        print('  cause', c, sum(union_within(rs, spans[i][1], spans[i][2]) for i in warm))
    steady = [i for i in range(len(spans)) if i not in warm]
    print('window of the steady steps', sum(durs[i] for i in steady), 'mean', sum(durs[i] for i in steady) // len(steady))
    print('window of every step', sum(durs))


if __name__ == '__main__':
    main(sys.argv[1])
