/* ks-timeline-layout.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-timeline-layout"

#include "config.h"

#include <string.h>

#include "ks-timeline-layout-private.h"

/* The layout's lifetime, which rows are visible and where they lie. */

/* The memory series that belong to a process, drawn as counter rows of
 * allocated bytes under it. */
static void
find_memory_series (KsTimelineLayout *self)
{
  const KsMemorySeriesSet *set = ks_memory_series_get (self->trace);

  self->memory = g_array_new (FALSE, FALSE, sizeof (const KsMemorySeries *));
  for (guint i = 0; i < set->n_series; i++)
    if (set->series[i].process != KS_NO_INDEX)
      {
        const KsMemorySeries *m = &set->series[i];

        g_array_append_val (self->memory, m);
      }
}

static void
relayout (KsTimelineLayout *self)
{
  int y = 0;

  g_array_set_size (self->visible, 0);

  for (guint i = 0; i < self->rows->len; i++)
    {
      KsRow *row = &g_array_index (self->rows, KsRow, i);
      const KsRow *group = &g_array_index (self->rows, KsRow, row->group);

      if (row->kind != KS_ROW_GROUP && !group->expanded)
        {
          row->y = -1;
          continue;
        }
      row->y = y;
      y += row->height;
      g_array_append_val (self->visible, i);
    }

  self->height = y;
}

KsTimelineLayout *
ks_timeline_layout_new (KsTrace *trace)
{
  KsTimelineLayout *self;

  g_return_val_if_fail (KS_IS_TRACE (trace), NULL);

  self = g_new0 (KsTimelineLayout, 1);
  self->trace = g_object_ref (trace);
  self->waiting_category = ks_trace_lookup_string (trace, KS_SAMPLE_WAITING_CATEGORY);
  self->rows = g_array_new (FALSE, TRUE, sizeof (KsRow));
  self->visible = g_array_new (FALSE, FALSE, sizeof (guint));
  self->track_rows = g_new (guint, MAX (1, trace->n_tracks));
  self->busy_sums = g_new0 (gint64 *, MAX (1, trace->n_tracks));
  find_memory_series (self);
  self->blocks = ks_memory_blocks_get (trace);
  _ks_timeline_layout_index_instants (self);
  self->gpu = ks_gpu_series_get (trace);
  self->counter_rows = g_new (guint, MAX (1, n_layout_counters (self)));
  self->counter_blocks = g_new0 (float *, MAX (1, n_layout_counters (self)));
  memset (self->track_rows, 0xff, sizeof (guint) * MAX (1, trace->n_tracks));
  memset (self->counter_rows, 0xff, sizeof (guint) * MAX (1, n_layout_counters (self)));

  _ks_timeline_layout_build_rows (self);
  relayout (self);

  return self;
}

void
ks_timeline_layout_free (KsTimelineLayout *self)
{
  if (self == NULL)
    return;

  for (guint i = 0; i < self->rows->len; i++)
    g_free (g_array_index (self->rows, KsRow, i).label);
  g_array_unref (self->rows);
  g_array_unref (self->visible);
  g_free (self->track_rows);
  g_free (self->counter_rows);
  for (guint32 c = 0; c < n_layout_counters (self); c++)
    g_free (self->counter_blocks[c]);
  g_free (self->counter_blocks);
  g_array_unref (self->memory);
  g_free (self->name_colors[0]);
  g_free (self->name_colors[1]);
  for (guint32 t = 0; t < self->trace->n_tracks; t++)
    g_free (self->busy_sums[t]);
  g_free (self->busy_sums);
  _ks_timeline_layout_free_instants (self);
  g_object_unref (self->trace);
  g_free (self);
}

KsTrace *
ks_timeline_layout_get_trace (KsTimelineLayout *self)
{
  return self->trace;
}

guint
ks_timeline_layout_get_n_rows (KsTimelineLayout *self)
{
  return self->rows->len;
}

const KsRow *
ks_timeline_layout_get_row (KsTimelineLayout *self,
                            guint             row)
{
  g_return_val_if_fail (row < self->rows->len, NULL);

  return &g_array_index (self->rows, KsRow, row);
}

guint
ks_timeline_layout_find_track_row (KsTimelineLayout *self,
                                   guint32           track)
{
  if (track >= self->trace->n_tracks)
    return KS_NO_INDEX;
  return self->track_rows[track];
}

guint
ks_timeline_layout_find_counter_row (KsTimelineLayout *self,
                                     guint32           counter)
{
  if (counter >= self->trace->n_counters)
    return KS_NO_INDEX;
  return self->counter_rows[counter];
}

const KsCounter *
ks_timeline_layout_get_counter (KsTimelineLayout *self,
                                guint32           index)
{
  g_return_val_if_fail (index < n_layout_counters (self), NULL);

  return layout_counter (self, index);
}

gboolean
ks_timeline_layout_counter_is_bytes (KsTimelineLayout *self,
                                     guint32           index)
{
  const char *unit;

  g_return_val_if_fail (index < n_layout_counters (self), FALSE);

  if (layout_gpu_series (self, index) != NULL)
    return FALSE;
  if (index >= self->trace->n_counters)
    return TRUE;
  unit = ks_trace_string (self->trace, self->trace->counters[index].unit);
  return g_str_equal (unit, "bytes") || g_str_equal (unit, "B");
}

const char *
ks_timeline_layout_get_counter_unit (KsTimelineLayout *self,
                                     guint32           index)
{
  const KsGpuSeries *g;

  g_return_val_if_fail (index < n_layout_counters (self), "");

  if ((g = layout_gpu_series (self, index)) != NULL)
    return g->kind == KS_GPU_SERIES_COPY_BANDWIDTH ? "GB/s" : "";
  if (index >= self->trace->n_counters)
    return "bytes";
  return ks_trace_string (self->trace, self->trace->counters[index].unit);
}

void
ks_timeline_layout_set_expanded (KsTimelineLayout *self,
                                 guint             row,
                                 gboolean          expanded)
{
  KsRow *r;

  g_return_if_fail (row < self->rows->len);

  r = &g_array_index (self->rows, KsRow, row);
  if (r->kind != KS_ROW_GROUP || r->expanded == !!expanded)
    return;
  r->expanded = !!expanded;
  relayout (self);
}

guint
ks_timeline_layout_get_n_visible (KsTimelineLayout *self)
{
  return self->visible->len;
}

guint
ks_timeline_layout_get_visible (KsTimelineLayout *self,
                                guint             position)
{
  g_return_val_if_fail (position < self->visible->len, KS_NO_INDEX);

  return g_array_index (self->visible, guint, position);
}

int
ks_timeline_layout_get_height (KsTimelineLayout *self)
{
  return self->height;
}

guint
ks_timeline_layout_position_at_y (KsTimelineLayout *self,
                                  double            y)
{
  guint lo = 0, hi = self->visible->len;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      const KsRow *row = &g_array_index (self->rows, KsRow, g_array_index (self->visible, guint, mid));

      if (row->y + row->height > y)
        hi = mid;
      else
        lo = mid + 1;
    }

  return lo;
}

guint
ks_timeline_layout_row_at_y (KsTimelineLayout *self,
                             double            y)
{
  guint pos = ks_timeline_layout_position_at_y (self, y);
  guint r;

  if (y < 0 || pos >= self->visible->len)
    return KS_NO_INDEX;
  r = g_array_index (self->visible, guint, pos);
  if (g_array_index (self->rows, KsRow, r).y > y)
    return KS_NO_INDEX;
  return r;
}

int
ks_timeline_layout_lane_y (guint depth)
{
  return KS_ROW_PADDING + depth * KS_LANE_HEIGHT;
}
