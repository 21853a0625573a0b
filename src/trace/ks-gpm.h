/* ks-gpm.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The GPU's own activity counters (NVML's GPM, Hopper and later) as
 * counter rows, one per GPU and metric, under the same names wherever
 * they come from: a recording's NVML sampler, the live monitor's -o,
 * the monitor's --query-gpu csv and nvidia-smi dmon --gpm-metrics. */

#define KS_GPM_SM_ACTIVE     "SM activity"
#define KS_GPM_TENSOR_ACTIVE "Tensor activity"

typedef struct
{
  const char *query;        /* the monitor's --query-gpu name, NULL: dmon only */
  const char *dmon;         /* nvidia-smi dmon's column, NULL when not known */
  const char *counter;      /* the counter row */
  const char *unit;         /* "%" or "bytes/s" */
  double      query_scale;  /* the csv's unit (%, MB/s) into @unit */
  const char *description;
} KsGpmField;

/* The fields: the first KS_GPM_N_QUERY_FIELDS in the order of
 * KsNvmlGpmMetric (ks-nvml.h), then those only dmon shows. */
#define KS_GPM_N_QUERY_FIELDS 11

const KsGpmField *ks_gpm_get_fields    (guint       *n_fields);
/* The field of a --query-gpu name or (@dmon) a dmon column, or NULL. */
const KsGpmField *ks_gpm_find_field    (const char  *name,
                                        gboolean     dmon);

G_END_DECLS
