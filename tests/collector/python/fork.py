# SPDX-License-Identifier: GPL-3.0-or-later
#
# The parent forks; the child spins in child_spin() for 0.5 s of its CPU
# time (a busy machine lengthens the run, not thins it) and leaves through
# os._exit(), as multiprocessing's workers do; the parent waits in
# parent_wait().

import os
import time


def child_spin():
    end = time.thread_time() + 0.5
    while time.thread_time() < end:  # CHILD
        pass


def parent_wait(pid):
    os.waitpid(pid, 0)  # PARENT


pid = os.fork()
if pid == 0:
    child_spin()
    os._exit(0)
parent_wait(pid)
print('child', pid)
