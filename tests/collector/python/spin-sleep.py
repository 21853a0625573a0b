# SPDX-License-Identifier: GPL-3.0-or-later
#
# One thread spinning in pure Python, one sleeping: the main thread waits
# WARM seconds in time.sleep (line marked WARM), so that sampling is under
# way, then spins in spin() (line SPIN) for DURATION seconds of wall
# time; the thread "sleeper" sleeps in time.sleep in sleeper() (line
# SLEEP) until the spinning ends. Writes to OUT the spin's start and end
# (time.monotonic_ns(), CLOCK_MONOTONIC) and both threads' kernel ids.

import sys
import threading
import time

DURATION = float(sys.argv[1])
OUT = sys.argv[2]
WARM = 1.0

done = False


def sleeper():
    while not done:
        time.sleep(0.05)  # SLEEP


def spin(duration):
    end = time.monotonic() + duration
    n = 0
    while time.monotonic() < end:  # SPIN
        n += 1
    return n


thread = threading.Thread(target=sleeper, name='sleeper')
thread.start()
time.sleep(WARM)  # WARM
start = time.monotonic_ns()
spin(DURATION)
end = time.monotonic_ns()
done = True
thread.join()
with open(OUT, 'w') as f:
    f.write('%d %d %d %d\n' % (start, end, threading.get_native_id(), thread.native_id))
