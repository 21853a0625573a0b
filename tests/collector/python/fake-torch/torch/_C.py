# SPDX-License-Identifier: GPL-3.0-or-later
#
# What the recorder reads of torch._C: the C++ ABI its observer is built
# for, and the allocator's out-of-memory observers
# (torch.cuda.memory._fake_out_of_memory() calls them as the caching
# allocator does before it raises).

from torch._log import log

_GLIBCXX_USE_CXX11_ABI = True

_oom_observers = []


def _cuda_attach_out_of_memory_observer(observer):
    log('attach-out-of-memory-observer')
    _oom_observers.append(observer)
