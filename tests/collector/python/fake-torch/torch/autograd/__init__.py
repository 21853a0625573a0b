# SPDX-License-Identifier: GPL-3.0-or-later
#
# torch.autograd's profiler switches: one profiler per thread, as in
# PyTorch (a second _enable_profiler on a thread fails).

import threading

from torch._log import log

_state = threading.local()


class ProfilerState:
    Disabled = 'Disabled'
    NVTX = 'NVTX'
    KINETO = 'KINETO'


class ProfilerConfig:
    """As torch's pybind class: built from its arguments, none of them
    readable back (no .state), so the recorder cannot rely on them."""

    def __init__(self, state, report_input_shapes, profile_memory, with_stack, with_flops,
                 with_modules, experimental_config=None):
        self._fake = (state, report_input_shapes, experimental_config)


def _enable_profiler(config, activities, scopes=None):
    if getattr(_state, 'on', False):
        log('enable-refused', config._fake[0])
        raise RuntimeError('Profiler is already enabled on this thread')
    _state.on = True
    log('enable', config._fake[0], 'shapes=%s' % config._fake[1],
        'experimental=%s' % (config._fake[2] is not None),
        'activities=%r' % (activities,))


def _disable_profiler():
    if not getattr(_state, 'on', False):
        raise RuntimeError("Can't disable Kineto profiler when it's not running")
    _state.on = False
    log('disable')
    return object()


def _prepare_profiler(config, activities):
    log('prepare', config._fake[0])


from torch.autograd import profiler  # noqa: E402
