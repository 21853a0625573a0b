# SPDX-License-Identifier: GPL-3.0-or-later
#
# The caching allocator's history: a fixed trace on two devices, one
# entry a millisecond from the moment recording was asked for, with one
# entry that has no time (older PyTorch); or, with $FAKE_TORCH_SNAPSHOT,
# the snapshot pickled in that file (one dumped by the real torch).

import os
import pickle
import time

import torch
from torch._log import log

_base_us = None

MIB = 1024 * 1024


def _record_memory_history(enabled='all', context='all', stacks='all', max_entries=0,
                           device=None, clear_history=False):
    global _base_us
    if not torch.cuda.is_initialized():
        log('record-memory-history-before-cuda-init')
        raise RuntimeError('CUDA is not initialized')
    _base_us = time.time_ns() // 1000
    log('record-memory-history', 'enabled=%s' % enabled, 'context=%s' % context,
        'stacks=%s' % stacks, 'max_entries=%d' % max_entries, 'mono_ns=%d' % time.monotonic_ns())


def _fake_out_of_memory(request=28 << 20):
    # as the allocator does before it raises torch.OutOfMemoryError
    log('out-of-memory', 'request=%d' % request)
    for observer in torch._C._oom_observers:
        observer(0, request, 0, 0)


def _snapshot(device=None):
    log('snapshot')
    if os.environ.get('FAKE_TORCH_SNAPSHOT'):
        with open(os.environ['FAKE_TORCH_SNAPSHOT'], 'rb') as f:
            return pickle.load(f)
    b = _base_us

    def e(action, addr, size, k):
        entry = {'action': action, 'addr': addr, 'size': size, 'stream': 0, 'frames': []}
        if k is not None:
            entry['time_us'] = b + 1000 * k
        return entry

    return {
        'segments': [],
        'device_traces': [
            [
                e('segment_alloc', 0x7f0000000000, 2 * MIB, 1),
                e('alloc', 0x7f0000000000, 512, 2),
                e('alloc', 0x7f0000000200, 1024, 3),
                e('free_requested', 0x7f0000000000, 512, 4),
                e('free_completed', 0x7f0000000000, 512, 5),
                e('segment_map', 0x7f0000200000, 4 * MIB, 6),
                e('alloc', 0x7f0000200000, 4096, 7),
                e('segment_unmap', 0x7f0000200000, 4 * MIB, 8),
            ],
            [
                e('segment_alloc', 0x7e0000000000, 1 * MIB, 9),
                e('alloc', 0x7e0000000000, 256, None),
                e('alloc', 0x7e0000000100, 128, 10),
                e('free_requested', 0x7e0000000100, 128, 11),
                e('segment_free', 0x7e0000000000, 1 * MIB, 12),
            ],
        ],
    }
