# SPDX-License-Identifier: GPL-3.0-or-later
#
# The two user profilers the recorder must step aside for, calling the
# switches through this module's globals as torch.autograd.profiler does.

import torch
from torch.autograd import (ProfilerConfig, ProfilerState, _disable_profiler, _enable_profiler,
                            _prepare_profiler)


class _ExperimentalConfig:
    pass


class emit_nvtx:
    def __init__(self, enabled=True, record_shapes=False):
        self.record_shapes = record_shapes

    def __enter__(self):
        torch.cuda.synchronize()
        _enable_profiler(ProfilerConfig(ProfilerState.NVTX, self.record_shapes, False, False,
                                        False, False, _ExperimentalConfig()), set())
        return self

    def __exit__(self, *exc):
        torch.cuda.synchronize()
        _disable_profiler()
        return False


class profile:
    def __enter__(self):
        config = ProfilerConfig(ProfilerState.KINETO, False, False, False, False, False,
                                _ExperimentalConfig())
        _prepare_profiler(config, {'CPU'})
        _enable_profiler(config, {'CPU'})
        return self

    def __exit__(self, *exc):
        _disable_profiler()
        return False
