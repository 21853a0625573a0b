# SPDX-License-Identifier: GPL-3.0-or-later
#
# Two threads in known places: the main thread spins in spin() (line
# marked SPIN) for DURATION seconds of its own CPU time, so that a busy
# machine lengthens the run rather than thinning its samples; the thread
# "napper" sleeps in nap() (line marked NAP) until the spinning ends.

import sys
import threading
import time

DURATION = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0


spinning = True


def nap():
    while spinning:
        time.sleep(0.01)  # NAP


def spin():
    end = time.thread_time() + DURATION
    n = 0
    while time.thread_time() < end:  # SPIN
        n += 1
    return n


napper = threading.Thread(target=nap, name='napper')
napper.start()
spin()
spinning = False
napper.join()
