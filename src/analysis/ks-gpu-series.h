/* ks-gpu-series.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ks-trace.h"

G_BEGIN_DECLS

/* Series derived from a trace's GPU activity, drawn by the timeline as
 * counter rows: HTA's queue length of each stream with launched work,
 * and the achieved memcpy bandwidth of each GPU (of each rank) and copy
 * kind. Like the
 * memory series, they are built once per trace, on first use, and kept
 * with it; the analysis takes its queue statistics from the same series
 * (ks_gpu_series_build_queue()), so that the row and the report agree. */

typedef enum
{
  KS_GPU_SERIES_QUEUE = 0,       /* operations launched and not yet finished */
  KS_GPU_SERIES_COPY_BANDWIDTH,  /* GB/s (bytes per ns) of the copies running */
} KsGpuSeriesKind;

typedef struct
{
  guint8     kind;               /* KsGpuSeriesKind */
  guint8     copy_kind;          /* KsCopyKind, bandwidth series */
  gint32     device;
  guint32    group;              /* the stream's group; bandwidth: the rank's group when the
                                  * trace has several ranks, else KS_NO_INDEX */
  guint32    track;              /* queue: the stream track; KS_NO_INDEX otherwise */
  KsCounter  counter;            /* a step function: each value holds until the next sample,
                                  * the last one is 0; device set, no process */
} KsGpuSeries;

typedef struct
{
  guint        n_series;         /* queues in track order, then bandwidth by rank, device and kind */
  KsGpuSeries *series;
} KsGpuSeriesSet;

/* The queue length of stream @track: +1 when the launch call of one of
 * its kernels, copies or memsets starts, -1 when the operation ends (no
 * earlier than its launch), ends before launches at the same time. The
 * @launch flow of each slice (KS_NO_INDEX: none known). Fills @counter's
 * samples, one per distinct time; none when nothing was launched.
 * Returns the number of operations counted. */
guint64               ks_gpu_series_build_queue (const KsTrace  *trace,
                                                 guint32         track,
                                                 const guint32  *launch,
                                                 KsCounter      *counter);

/* The series of @trace (owned by it). Thread-safe. */
const KsGpuSeriesSet *ks_gpu_series_get         (KsTrace        *trace);

G_END_DECLS
