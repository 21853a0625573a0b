# SPDX-License-Identifier: GPL-3.0-or-later
#
# A stand-in for PyTorch in the recorder's tests (tests/collector/
# test-record-python.c): only the API the recorder's Python side calls,
# each call written to $FAKE_TORCH_LOG, one line each:
#   THREAD-NAME CALL ARGS

from torch import _C
from torch import _log
from torch import autograd
from torch import cuda

__version__ = '0.0-fake'
_log.log('imported')
