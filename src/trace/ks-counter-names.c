/* ks-counter-names.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "ks-counter-names.h"

/* Every counter name of ks-record-sampler.c, ks-nvsmi-reader.c's tables
 * and ks-gpm.c (test-nvsmi-reader checks the logs' rows against it). */
static const char * const names[] = {
  N_("GPU utilization"),
  N_("GPU memory utilization"),
  N_("GPU memory used"),
  N_("GPU memory total"),
  N_("GPU memory free"),
  N_("GPU memory reserved"),
  N_("GPU temperature"),
  N_("GPU memory temperature"),
  N_("GPU power"),
  N_("GPU power (average)"),
  N_("GPU power limit"),
  N_("SM clock"),
  N_("Graphics clock"),
  N_("Memory clock"),
  N_("Fan speed"),
  N_("Encoder utilization"),
  N_("Decoder utilization"),
  N_("JPEG utilization"),
  N_("OFA utilization"),
  N_("BAR1 memory used"),
  N_("Protected memory used"),
  N_("SM utilization"),
  N_("Memory utilization"),
  N_("SM activity"),
  N_("SM occupancy"),
  N_("Tensor activity"),
  N_("DRAM activity"),
  N_("FP16 activity"),
  N_("FP32 activity"),
  N_("FP64 activity"),
  N_("PCIe sent"),
  N_("PCIe received"),
  N_("NVLink sent"),
  N_("NVLink received"),
  N_("Graphics activity"),
  N_("Integer activity"),
};

static const char *
find (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (strcmp (names[i], name) == 0)
      return names[i];
  return NULL;
}

const char *
ks_counter_name_display (const char *name)
{
  const char *known = find (name);

  return known != NULL ? _(known) : name;
}

gboolean
ks_counter_name_is_known (const char *name)
{
  return find (name) != NULL;
}
