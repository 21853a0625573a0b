# SPDX-License-Identifier: GPL-3.0-or-later
#
# Empties sys.path, then works for a while and forks.

import os
import sys
import time

sys.path.clear()


def after_clear():
    end = time.monotonic() + 0.4
    while time.monotonic() < end:  # CLEARED
        pass


after_clear()
pid = os.fork()
if pid == 0:
    after_clear()
    os._exit(0)
os.waitpid(pid, 0)
