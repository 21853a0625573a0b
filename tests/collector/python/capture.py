# SPDX-License-Identifier: GPL-3.0-or-later
#
# A capture range that opens while a thread waits in one place: the thread
# "idler" sleeps in idle() (line marked IDLE) the whole time; the main
# thread opens the NVTX range "go" (through the NVTX shim, argv[1]) after
# 0.3 s and closes it 0.6 s later.

import ctypes
import sys
import threading
import time

shim = ctypes.CDLL(sys.argv[1])
shim.shim_push.argtypes = [ctypes.c_char_p]


def idle():
    time.sleep(1.3)  # IDLE


idler = threading.Thread(target=idle, name='idler')
idler.start()
time.sleep(0.3)
shim.shim_push(b'go')
time.sleep(0.6)
shim.shim_pop()
idler.join()
