/* ks-memory-series.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ks-trace.h"

G_BEGIN_DECLS

/* Memory in use over time, one series per process and device, from the
 * trace's memory events (PyTorch reports the allocator's state as events,
 * not counters). The timeline draws them as counter rows and the analysis
 * adds them up into its per-device memory curves; they are built once per
 * trace, on first use, and kept with it.
 *
 * A series whose events carry the allocator's "Total Allocated" takes its
 * samples from those totals, and an event of it without one adds no
 * sample; a series whose events carry none sums their allocations and
 * frees (saturating, so that a damaged trace cannot overflow it).
 *
 * A series with caching-allocator events (their reserved total known)
 * leaves out its CUDA-level cudaMalloc/cudaFree rows: those are the
 * allocator's reserved segments, the same bytes counted a second time. */

typedef struct
{
  gint32     device;       /* -1 for host memory */
  guint32    process;      /* process index, KS_NO_INDEX when the events name none */
  KsCounter  allocated;    /* one sample per event: ts and bytes; device and process set */
  gint64    *reserved;     /* per sample, bytes, -1 while unknown */
  gboolean   allocator;    /* has caching-allocator events: see ks_memory_series_uses() */
  KsCounter  unused;       /* reserved minus allocated: what the caching allocator holds and
                            * has not handed out (fragmentation), at the samples whose
                            * reserved total is known; none without allocator events */
} KsMemorySeries;

typedef struct
{
  guint           n_series;
  KsMemorySeries *series;
  guint32        *event_series;   /* per memory event of the trace: its series */
  guint32        *event_sample;   /* ... and its sample there, or KS_NO_INDEX */
} KsMemorySeriesSet;

/* Sizes and totals past this are no memory a process had: a hostile or
 * broken trace (INT64_MAX bytes is 9.2 EB). Such events add nothing to
 * the series and are left out of the analysis, which counts them, so that
 * sums cannot overflow and the peak means something. */
#define KS_MEMORY_MAX_PLAUSIBLE_BYTES (G_GINT64_CONSTANT (1) << 50)

gboolean                 ks_memory_event_is_plausible (const KsMemoryEvent *ev);

/* @a + @b, held at the ends of the range rather than overflowing. */
gint64                   ks_memory_add_bytes  (gint64   a,
                                               gint64   b);

/* Whether memory event @e of the trace counts in its series (FALSE for
 * the CUDA-level rows of a series that has allocator events). */
gboolean                 ks_memory_series_uses (const KsMemorySeriesSet *set,
                                                const KsTrace           *trace,
                                                guint32                  e);

/* The series of @trace (owned by it). Thread-safe. */
const KsMemorySeriesSet *ks_memory_series_get (KsTrace *trace);

G_END_DECLS
