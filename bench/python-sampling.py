# SPDX-License-Identifier: GPL-3.0-or-later
#
# The cost of the recorder's Python stack sampling (docs/performance.md):
# a pure-Python CPU-bound loop, timed inside the program, with a second
# thread asleep. Run it under `kinescope-cli record` with
# --python-sampling=false and with --python-sampling-frequency=HZ;
# prints the loop's seconds. "python-sampling.py N DEPTH" runs the loop of
# N additions DEPTH frames deep (default 1), as a training step's stack is.
#
# "python-sampling.py round DEPTH" (PYTHONPATH=src/collector/python,
# KINESCOPE_INJECT_LIBRARY=…/libkinescope-inject.so): the cost of one
# sampling round, in-process, of this thread's stack DEPTH frames deep plus
# the sleeper's, through the real library (not recording: its calls return
# right after ctypes).

import os
import sys
import threading
import time

if len(sys.argv) > 2 and sys.argv[1] == 'round':
    import _kinescope_python as k
    k._lib = k._load_library()
    sampler = k.Sampler(k._lib, 1000)
    stop = threading.Event()
    threading.Thread(target=stop.wait, daemon=True).start()

    def deep(d):
        if d > 1:
            return deep(d - 1)
        sampler.sample_all(0)
        t = time.perf_counter()
        for _ in range(20000):
            sampler.sample_all(0)
        return (time.perf_counter() - t) / 20000

    print('%.1f us per round' % (deep(int(sys.argv[2])) * 1e6))
    stop.set()
    sys.exit(0)

N = int(sys.argv[1]) if len(sys.argv) > 1 else 20000000
DEPTH = int(sys.argv[2]) if len(sys.argv) > 2 else 1

stop = threading.Event()
threading.Thread(target=stop.wait, daemon=True).start()


def loop(n):
    x = 0
    for i in range(n):
        x += i & 7
    return x


def deep(d):
    if d > 1:
        return deep(d - 1)
    return loop(N)


t = time.perf_counter()
deep(DEPTH)
print('%.3f' % (time.perf_counter() - t))
stop.set()
