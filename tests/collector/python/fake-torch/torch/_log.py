# SPDX-License-Identifier: GPL-3.0-or-later
#
# Each line: the kernel thread id, the call, its arguments. (Not the
# thread's name: threading.current_thread() would register a dummy thread
# where the recorder turns the profiler on, before the thread is known.)

import os
import threading


def log(*parts):
    with open(os.environ['FAKE_TORCH_LOG'], 'a') as f:
        f.write(' '.join(['tid=%d' % threading.get_native_id()] + [str(p) for p in parts]) + '\n')
