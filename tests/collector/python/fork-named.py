# SPDX-License-Identifier: GPL-3.0-or-later
#
# The parent forks a child that renames its thread in the kernel, as
# PyTorch's DataLoader workers do (pt_data_worker), and spins in
# child_spin() for 0.3 s of its CPU time; the parent waits. Writes the
# child's pid to the file argv[1].

import ctypes
import os
import sys
import time

PR_SET_NAME = 15


def child_spin():
    end = time.thread_time() + 0.3
    while time.thread_time() < end:
        pass


pid = os.fork()
if pid == 0:
    ctypes.CDLL(None).prctl(PR_SET_NAME, b'pt_data_worker', 0, 0, 0)
    child_spin()
    os._exit(0)
with open(sys.argv[1], 'w') as f:
    f.write('%d\n' % pid)
os.waitpid(pid, 0)
