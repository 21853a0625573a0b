# SPDX-License-Identifier: GPL-3.0-or-later
#
# CUDA initialises lazily, as in PyTorch: _lazy_call() queues until init().

from torch._log import log
from torch.cuda import memory  # noqa: F401

_initialized = False
_queued_calls = []


def is_initialized():
    return _initialized


def _lazy_call(callable, **kwargs):
    if _initialized:
        callable()
    else:
        _queued_calls.append(callable)


def init():
    global _initialized
    if _initialized:
        return
    log('cuda-init')
    _initialized = True
    for call in _queued_calls:
        call()


def synchronize():
    init()
    log('synchronize')
