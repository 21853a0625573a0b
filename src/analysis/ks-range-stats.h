/* ks-range-stats.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "ks-analysis.h"
#include "ks-trace.h"

G_BEGIN_DECLS

/* Statistics of a selected time range: GPU busy time per device (the
 * union of kernel intervals clipped to the range, as the TensorBoard
 * plugin and HTA define it, with copies when the options count them:
 * ks_analysis_options_busy_kinds ()), and the kernels and operators that spent
 * the most time inside it (durations clipped to the range; for
 * operators their self time, without the nested operators they call). */

typedef struct
{
  guint32 name;              /* string id */
  guint64 count;             /* slices intersecting the range */
  gint64  total_ns;          /* their time inside the range */
} KsRangeEntry;

typedef struct
{
  gint32  device;
  gint64  busy_ns;
} KsRangeGpu;

typedef struct
{
  KsTrace *trace;            /* the trace these statistics are of */
  gint64  start;
  gint64  end;
  guint64 n_slices;          /* slices of any kind intersecting the range */
  GArray *gpus;              /* KsRangeGpu, by device */
  GArray *kernels;           /* KsRangeEntry, longest total first */
  GArray *operators;         /* KsRangeEntry (cpu_op), total = self time, longest first */
} KsRangeStats;

KsRangeStats *ks_range_stats_compute        (KsTrace                  *trace,
                                             const KsAnalysisOptions  *options,
                                             gint64                    start,
                                             gint64                    end,
                                             GCancellable             *cancellable);
void          ks_range_stats_compute_async  (KsTrace                  *trace,
                                             const KsAnalysisOptions  *options,
                                             gint64                    start,
                                             gint64                    end,
                                             GCancellable             *cancellable,
                                             GAsyncReadyCallback       callback,
                                             gpointer                  user_data);
KsRangeStats *ks_range_stats_compute_finish (GAsyncResult             *result,
                                             GError                  **error);
void          ks_range_stats_free           (KsRangeStats             *stats);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (KsRangeStats, ks_range_stats_free)

G_END_DECLS
