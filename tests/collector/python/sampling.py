# SPDX-License-Identifier: GPL-3.0-or-later
#
# Two threads in known places for DURATION seconds: the main thread spins
# in spin() (line marked SPIN), the thread "napper" sleeps in nap() (line
# marked NAP).

import sys
import threading
import time

DURATION = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0


def nap():
    time.sleep(DURATION)  # NAP


def spin():
    end = time.monotonic() + DURATION
    n = 0
    while time.monotonic() < end:  # SPIN
        n += 1
    return n


napper = threading.Thread(target=nap, name='napper')
napper.start()
spin()
napper.join()
