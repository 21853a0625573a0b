/* ks-nvml.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* NVML, loaded with dlopen at run time (libnvidia-ml.so.1, or the file
 * named by $KINESCOPE_NVML_LIBRARY): no build dependency on the driver.
 * The few types and functions used are declared in ks-nvml.c with the
 * layouts of NVIDIA's public nvml.h. */

typedef struct _KsNvml KsNvml;

typedef struct
{
  guint  index;
  char  *name;
  char  *uuid;
  char  *bus_id;
  guint64 total_memory;
} KsNvmlDevice;

typedef enum
{
  KS_NVML_HAS_UTILIZATION = 1 << 0,
  KS_NVML_HAS_MEMORY      = 1 << 1,
  KS_NVML_HAS_TEMPERATURE = 1 << 2,
  KS_NVML_HAS_POWER       = 1 << 3,
  KS_NVML_HAS_SM_CLOCK    = 1 << 4,
} KsNvmlFields;

typedef struct
{
  KsNvmlFields fields;
  guint        utilization_gpu;     /* % */
  guint        utilization_memory;  /* % */
  guint64      memory_used;         /* bytes */
  guint64      memory_total;        /* bytes */
  guint        temperature;         /* °C */
  double       power;               /* W */
  guint        sm_clock;            /* MHz */
} KsNvmlSample;

KsNvml             *ks_nvml_open          (GError       **error);
void                ks_nvml_close         (KsNvml        *self);
guint               ks_nvml_get_n_devices (KsNvml        *self);
const KsNvmlDevice *ks_nvml_get_device    (KsNvml        *self,
                                           guint          index);
gboolean            ks_nvml_sample        (KsNvml        *self,
                                           guint          index,
                                           KsNvmlSample  *sample);

G_END_DECLS
