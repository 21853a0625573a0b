# SPDX-License-Identifier: GPL-3.0-or-later
#
# Uses the fake torch (fake-torch/) as a training script would: imports it,
# starts a thread, initialises CUDA (unless the mode has "no-cuda"), runs
# the program's own profilers (emit_nvtx, then profile), computes for half
# a second ("spin": long enough to be sampled on any machine) and exits
# ("os-exit": through os._exit(), past the exit hooks). "oom": the allocator
# reports an out-of-memory error, and with "kill" the program dies of it at
# once (SIGKILL: no exit hooks).

import sys
import threading
import time

import torch
from torch._log import log

mode = sys.argv[1] if len(sys.argv) > 1 else ''

log('program-after-import')
t = threading.Thread(target=lambda: log('worker-runs'), name='worker')
t.start()
t.join()
if 'no-cuda' not in mode:
    torch.cuda.init()
    with torch.autograd.profiler.emit_nvtx(record_shapes=True):
        log('inside-emit-nvtx')
    with torch.autograd.profiler.profile():
        log('inside-profile')
if 'spin' in mode:
    end = time.monotonic() + 0.5
    while time.monotonic() < end:
        pass
if 'oom' in mode:
    torch.cuda.memory._fake_out_of_memory()
    if 'kill' in mode:
        import os
        import signal
        os.kill(os.getpid(), signal.SIGKILL)
log('program-end')
if 'os-exit' in mode:
    # as a program that skips the exit hooks
    import os
    os._exit(0)
