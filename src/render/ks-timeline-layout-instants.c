/* ks-timeline-layout-instants.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-timeline-layout"

#include "config.h"

#include <math.h>
#include <string.h>

#include "ks-timeline-layout-private.h"

/* Instants drawn as marks on their track's row: a pin across the top
 * lane, marks closer than a few pixels folded into one that knows how
 * many it holds. An out-of-memory error is red, a segment event amber. */

#define MARK_WIDTH 7
#define FOLD_PX    (MARK_WIDTH - 1)

void
_ks_timeline_layout_index_instants (KsTimelineLayout *self)
{
  KsTrace *trace = self->trace;

  self->track_instants = g_new0 (GArray *, MAX (1, trace->n_tracks));
  for (guint32 i = 0; i < trace->n_instants; i++)
    {
      guint32 t = trace->instants[i].track;

      if (t >= trace->n_tracks)
        continue;
      if (self->track_instants[t] == NULL)
        self->track_instants[t] = g_array_new (FALSE, FALSE, sizeof (guint32));
      g_array_append_val (self->track_instants[t], i);
    }
}

void
_ks_timeline_layout_free_instants (KsTimelineLayout *self)
{
  for (guint32 t = 0; t < self->trace->n_tracks; t++)
    if (self->track_instants[t] != NULL)
      g_array_unref (self->track_instants[t]);
  g_free (self->track_instants);
}

guint32
ks_timeline_layout_track_instants (KsTimelineLayout *self,
                                   guint32           track)
{
  g_return_val_if_fail (track < self->trace->n_tracks, 0);

  return self->track_instants[track] != NULL ? self->track_instants[track]->len : 0;
}

KsColor
ks_timeline_layout_category_color (const char    *category,
                                   const KsTheme *theme)
{
  if (g_str_equal (category, "oom"))
    return theme->dark ? 0xff7b63ff : 0xc01c28ff;
  if (g_str_equal (category, "segment"))
    return theme->dark ? 0xf8e45cff : 0xc64600ff;
  return theme->foreground;
}

KsColor
ks_timeline_layout_instant_color (KsTimelineLayout *self,
                                  guint32           instant,
                                  const KsTheme    *theme)
{
  return ks_timeline_layout_category_color (ks_trace_string (self->trace, self->trace->instants[instant].category),
                                            theme);
}

/* The marks of @track in @view: for each, its first instant and how
 * many it folds. */
typedef struct
{
  guint32 first;             /* position in the track's instants */
  guint32 count;
  float   x;
} Mark;

static GArray *
visible_marks (KsTimelineLayout *self,
               guint32           track,
               const KsTimeView *view)
{
  GArray *ids = self->track_instants[track];
  GArray *marks = g_array_new (FALSE, FALSE, sizeof (Mark));
  double lo_t = view->t0 - MARK_WIDTH * view->ns_per_px;
  double hi_t = view->t0 + (view->width + MARK_WIDTH) * view->ns_per_px;
  guint lo = 0, hi;

  if (ids == NULL)
    return marks;
  hi = ids->len;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (self->trace->instants[g_array_index (ids, guint32, mid)].ts < lo_t)
        lo = mid + 1;
      else
        hi = mid;
    }
  for (guint p = lo; p < ids->len; p++)
    {
      const KsInstant *in = &self->trace->instants[g_array_index (ids, guint32, p)];
      float x = (float) ((in->ts - view->t0) / view->ns_per_px);
      Mark *last = marks->len > 0 ? &g_array_index (marks, Mark, marks->len - 1) : NULL;

      if (in->ts > hi_t)
        break;
      if (last != NULL && x - last->x < FOLD_PX)
        last->count++;
      else
        {
          Mark m = { p, 1, x };

          g_array_append_val (marks, m);
        }
    }
  return marks;
}

void
_ks_timeline_layout_build_instant_prims (KsTimelineLayout *self,
                                         guint32           track,
                                         const KsTimeView *view,
                                         const KsTheme    *theme,
                                         KsPrims          *prims)
{
  g_autoptr(GArray) marks = visible_marks (self, track, view);

  for (guint i = 0; i < marks->len; i++)
    {
      const Mark *m = &g_array_index (marks, Mark, i);
      guint32 instant = g_array_index (self->track_instants[track], guint32, m->first);
      KsColor color = ks_timeline_layout_instant_color (self, instant, theme);
      float x = floorf (m->x);
      KsPrimRect pin = { x - 1, KS_ROW_PADDING, 2, KS_LANE_HEIGHT - 1, color };
      KsPrimRect head = { x - MARK_WIDTH / 2, KS_ROW_PADDING, MARK_WIDTH, MARK_WIDTH, color };

      g_array_append_val (prims->rects, pin);
      g_array_append_val (prims->rects, head);
      /* a folded mark: a bar under its head, as folded slices have one */
      if (m->count > 1)
        {
          KsPrimRect bar = { x - MARK_WIDTH / 2, KS_ROW_PADDING + MARK_WIDTH + 1, MARK_WIDTH, 1, theme->folded };

          g_array_append_val (prims->rects, bar);
        }
    }
}

gboolean
ks_timeline_layout_hit_instant (KsTimelineLayout *self,
                                guint             row_index,
                                const KsTimeView *view,
                                double            x,
                                double            y_in_row,
                                KsInstantHit     *hit)
{
  const KsRow *row;
  g_autoptr(GArray) marks = NULL;

  g_return_val_if_fail (row_index < self->rows->len, FALSE);

  row = &g_array_index (self->rows, KsRow, row_index);
  if (row->kind != KS_ROW_SLICES || y_in_row >= KS_ROW_PADDING + KS_LANE_HEIGHT)
    return FALSE;
  marks = visible_marks (self, row->index, view);
  for (guint i = 0; i < marks->len; i++)
    {
      const Mark *m = &g_array_index (marks, Mark, i);
      GArray *ids = self->track_instants[row->index];

      if (fabs (x - floorf (m->x)) <= MARK_WIDTH / 2 + 0.5)
        {
          hit->instant = g_array_index (ids, guint32, m->first);
          hit->count = m->count;
          hit->start = self->trace->instants[hit->instant].ts;
          hit->end = self->trace->instants[g_array_index (ids, guint32, m->first + m->count - 1)].ts;
          hit->x = floorf (m->x);
          return TRUE;
        }
    }
  return FALSE;
}
