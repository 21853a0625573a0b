# SPDX-License-Identifier: GPL-3.0-or-later
#
# The allocator's out-of-memory observers: torch.cuda.memory._fake_out_of_memory()
# calls them as the caching allocator does before it raises.

from torch._log import log

_oom_observers = []


def _cuda_attach_out_of_memory_observer(observer):
    log('attach-out-of-memory-observer')
    _oom_observers.append(observer)
