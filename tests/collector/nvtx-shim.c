/* nvtx-shim.c: NVTX push and pop for Python programs of the tests
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* NVTX 3 is header-only: a Python program without torch reaches it
 * through this library, by ctypes. */

#include <nvtx3/nvToolsExt.h>

__attribute__((visibility ("default"))) void shim_push (const char *text);
__attribute__((visibility ("default"))) void shim_pop  (void);

void
shim_push (const char *text)
{
  nvtxRangePushA (text);
}

void
shim_pop (void)
{
  nvtxRangePop ();
}
