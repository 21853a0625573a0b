/* open-cupti.h: for the GPU machine's own injection libraries
 * (apicount.c, mincupti.c), the libcupti a program already maps: PyTorch
 * brings its own copy, and a second copy in one process would not see the
 * first one's subscribers.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <string.h>

static int
open_cupti_find (struct dl_phdr_info *info, size_t size, void *data)
{
  char *path = data;

  if (info->dlpi_name != NULL && strstr (info->dlpi_name, "libcupti.so") != NULL)
    {
      snprintf (path, 4096, "%s", info->dlpi_name);
      return 1;
    }
  return 0;
}

/* The mapped libcupti, else libcupti.so.13 from the library path; NULL
 * with a message on stderr naming @who when neither loads. */
static void *
open_cupti (const char *who)
{
  static char path[4096];
  void *h;

  dl_iterate_phdr (open_cupti_find, path);
  h = dlopen (path[0] ? path : "libcupti.so.13", RTLD_NOW | RTLD_LOCAL);
  if (h == NULL)
    fprintf (stderr, "%s: %s\n", who, dlerror ());
  return h;
}
