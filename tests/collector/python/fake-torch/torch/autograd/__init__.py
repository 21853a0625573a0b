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
    def __init__(self, state, report_input_shapes, profile_memory, with_stack, with_flops,
                 with_modules, experimental_config=None):
        self.state = state
        self.report_input_shapes = report_input_shapes
        self.experimental_config = experimental_config


def _enable_profiler(config, activities, scopes=None):
    if getattr(_state, 'on', False):
        log('enable-refused', config.state)
        raise RuntimeError('Profiler is already enabled on this thread')
    _state.on = True
    log('enable', config.state, 'shapes=%s' % config.report_input_shapes,
        'experimental=%s' % (config.experimental_config is not None),
        'activities=%r' % (activities,))


def _disable_profiler():
    if not getattr(_state, 'on', False):
        raise RuntimeError("Can't disable Kineto profiler when it's not running")
    _state.on = False
    log('disable')
    return object()


def _prepare_profiler(config, activities):
    log('prepare', config.state)


from torch.autograd import profiler  # noqa: E402
