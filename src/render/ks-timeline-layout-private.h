/* ks-timeline-layout-private.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ks-gpu-series.h"
#include "ks-memory-blocks.h"
#include "ks-memory-series.h"
#include "ks-timeline-layout.h"

G_BEGIN_DECLS

/* KsTimelineLayout is written in four files, each with one job:
 * ks-timeline-layout.c (its lifetime, which rows are visible and where),
 * ks-timeline-layout-rows.c (building and ordering the rows, their
 * labels), ks-timeline-layout-lod.c (level of detail and hit-testing)
 * and ks-timeline-layout-prims.c (the drawing primitives: rows, headers,
 * the ruler). They share this struct. */

struct _KsTimelineLayout
{
  KsTrace *trace;
  GArray  *rows;               /* KsRow */
  GArray  *visible;            /* guint row indices */
  int      height;
  guint   *track_rows;         /* track -> row */
  guint   *counter_rows;       /* counter -> row; memory series after the trace's counters */
  KsColor *name_colors[2];     /* per string id, light and dark; 0 = not yet computed */
  guint32  waiting_category;   /* KS_SAMPLE_WAITING_CATEGORY's string id, 0 none */
  GArray  *memory;             /* const KsMemorySeries *, counter index trace->n_counters + i */
  const KsMemoryBlocks *blocks; /* a memory snapshot's allocations, one row per device */
  const KsGpuSeriesSet *gpu;   /* queue and bandwidth series, after the memory series; then
                                * each memory series' unused bytes */
  gint64 **busy_sums;          /* per track, made when first drawn folded: for each depth in
                                * turn, n_by_depth + 1 running sums of the slices' durations */
  GArray **track_instants;     /* per track, its instants' indices by time, or NULL */
  float  **counter_blocks;     /* per counter of many samples, made when first drawn:
                                * ks_lod_counter_blocks_new() */
};

/* The first counter index of each memory series' unused bytes (reserved
 * minus allocated), after the GPU series. */
static inline guint32
layout_first_unused (KsTimelineLayout *self)
{
  return self->trace->n_counters + self->memory->len + self->gpu->n_series;
}

static inline const KsCounter *
layout_counter (KsTimelineLayout *self,
                guint32           index)
{
  if (index < self->trace->n_counters)
    return &self->trace->counters[index];
  if (index >= layout_first_unused (self))
    return &g_array_index (self->memory, const KsMemorySeries *, index - layout_first_unused (self))->unused;
  if (index >= self->trace->n_counters + self->memory->len)
    return &self->gpu->series[index - self->trace->n_counters - self->memory->len].counter;
  return &g_array_index (self->memory, const KsMemorySeries *, index - self->trace->n_counters)->allocated;
}

static inline guint32
n_layout_counters (KsTimelineLayout *self)
{
  return layout_first_unused (self) + self->memory->len;
}

/* The GPU series of counter @index, or NULL. */
static inline const KsGpuSeries *
layout_gpu_series (KsTimelineLayout *self,
                   guint32           index)
{
  guint32 first = self->trace->n_counters + self->memory->len;

  if (index < first || index >= layout_first_unused (self))
    return NULL;
  return &self->gpu->series[index - first];
}

/* ks-timeline-layout-rows.c: every row, in display order; run once. */
void _ks_timeline_layout_build_rows (KsTimelineLayout *self);

/* ks-timeline-layout-blocks.c: a KS_ROW_MEMORY_BLOCKS row's content. */
void _ks_timeline_layout_build_block_prims   (KsTimelineLayout *self,
                                              const KsRow      *row,
                                              const KsTimeView *view,
                                              const KsTheme    *theme,
                                              KsPrims          *prims);

/* ks-timeline-layout-instants.c: the instants by track, and their marks. */
void _ks_timeline_layout_index_instants      (KsTimelineLayout *self);
void _ks_timeline_layout_free_instants       (KsTimelineLayout *self);
void _ks_timeline_layout_build_instant_prims (KsTimelineLayout *self,
                                              guint32           track,
                                              const KsTimeView *view,
                                              const KsTheme    *theme,
                                              KsPrims          *prims);

G_END_DECLS
