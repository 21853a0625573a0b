/* ks-timeline-overlays.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-timeline"

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "ks-format.h"
#include "ks-timeline-private.h"

/* What is drawn over the rows: the selected or dragged range, the
 * hovered slice, the selected slice and its flow arrows, and the
 * critical path of a step. */

#define MAX_PATH_ARROWS 200

void
_ks_timeline_compute_arrows (KsTimeline *self)
{
  KsTrace *trace;
  guint32 track, slice;
  guint graph = G_MAXUINT;   /* the arrow of the selected call's launches */

  g_array_set_size (self->arrows, 0);

  if (self->session == NULL || !ks_session_get_selected_slice (self->session, &track, &slice))
    return;

  trace = ks_session_get_trace (self->session);
  for (guint32 i = 0; i < trace->n_flows; i++)
    {
      const KsFlow *f = &trace->flows[i];
      const KsTrack *to = &trace->tracks[f->to_track];
      gboolean launch = f->kind == KS_FLOW_LAUNCH && f->from_track == track && f->from_slice == slice;
      FlowArrow a = { f->from_track, f->from_slice, f->to_track, f->to_slice, f->kind,
                      1, to->start[f->to_slice], to->end[f->to_slice] };

      if (launch && graph != G_MAXUINT)
        {
          /* A graph launch is one arrow to its first operation and one
           * span holding them all, not an arrow for each. */
          FlowArrow *g = &g_array_index (self->arrows, FlowArrow, graph);

          g->n_ops++;
          if (a.span_start < g->span_start)
            {
              g->to_track = a.to_track;
              g->to_slice = a.to_slice;
            }
          g->span_start = MIN (g->span_start, a.span_start);
          g->span_end = MAX (g->span_end, a.span_end);
        }
      else if ((f->from_track == track && f->from_slice == slice) ||
               (f->to_track == track && f->to_slice == slice))
        {
          g_array_append_val (self->arrows, a);
          if (launch)
            graph = self->arrows->len - 1;
        }
    }
}

guint
ks_timeline_get_flow_arrow_span (KsTimeline *self,
                                 guint       i,
                                 gint64     *start,
                                 gint64     *end)
{
  const FlowArrow *a;

  g_return_val_if_fail (KS_IS_TIMELINE (self), 0);

  if (i >= self->arrows->len)
    return 0;
  a = &g_array_index (self->arrows, FlowArrow, i);
  *start = a->span_start;
  *end = a->span_end;
  return a->n_ops;
}

guint
ks_timeline_get_n_flow_arrows (KsTimeline *self)
{
  g_return_val_if_fail (KS_IS_TIMELINE (self), 0);

  return self->arrows->len;
}

static void
outline (GtkSnapshot *snapshot,
         double       x,
         double       y,
         double       w,
         double       h,
         double       t,
         KsColor      c)
{
  append_rect (snapshot, x - t, y - t, w + 2 * t, t, c);
  append_rect (snapshot, x - t, y + h, w + 2 * t, t, c);
  append_rect (snapshot, x - t, y, t, h, c);
  append_rect (snapshot, x + w, y, t, h, c);
}

static void
draw_arrow (GtkSnapshot   *snapshot,
            KsColor        color,
            double         x0,
            double         y0,
            double         x1,
            double         y1,
            int            width,
            int            height)
{
  graphene_rect_t bounds;
  cairo_t *cr;
  double angle = atan2 (y1 - y0, x1 - x0);
  double minx = MIN (x0, x1) - 10, maxx = MAX (x0, x1) + 10;
  double miny = MIN (y0, y1) - 10, maxy = MAX (y0, y1) + 10;

  /* Keep the cairo node as small as the arrow (it is rasterised on the CPU). */
  minx = MAX (minx, KS_HEADER_WIDTH);
  maxx = MIN (maxx, width);
  miny = MAX (miny, KS_RULER_HEIGHT);
  maxy = MIN (maxy, height);
  if (maxx <= minx || maxy <= miny)
    return;

  graphene_rect_init (&bounds, minx, miny, maxx - minx, maxy - miny);
  cr = gtk_snapshot_append_cairo (snapshot, &bounds);
  cairo_set_source_rgba (cr, KS_COLOR_R (color), KS_COLOR_G (color), KS_COLOR_B (color), 1.0);
  cairo_set_line_width (cr, 1.5);
  cairo_move_to (cr, x0, y0);
  cairo_line_to (cr, x1, y1);
  cairo_stroke (cr);
  cairo_move_to (cr, x1, y1);
  cairo_line_to (cr, x1 - 8 * cos (angle - 0.4), y1 - 8 * sin (angle - 0.4));
  cairo_line_to (cr, x1 - 8 * cos (angle + 0.4), y1 - 8 * sin (angle + 0.4));
  cairo_close_path (cr);
  cairo_fill (cr);
  cairo_arc (cr, x0, y0, 2.5, 0, 2 * G_PI);
  cairo_fill (cr);
  cairo_destroy (cr);
}

void
ks_timeline_set_critical_path (KsTimeline     *self,
                               KsCriticalPath *path,
                               guint           step)
{
  g_return_if_fail (KS_IS_TIMELINE (self));
  g_return_if_fail (path == NULL || KS_IS_CRITICAL_PATH (path));

  g_set_object (&self->path, path);
  self->path_step = step;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* The path's step when it is of the trace shown, else NULL. */
static const KsPathStep *
shown_path_step (KsTimeline *self)
{
  if (self->path == NULL || self->session == NULL ||
      ks_critical_path_get_trace (self->path) != ks_session_get_trace (self->session))
    return NULL;
  return ks_critical_path_find_step (self->path, self->path_step);
}

guint
ks_timeline_get_n_path_slices (KsTimeline *self)
{
  const KsPathStep *step;
  guint n = 0;

  g_return_val_if_fail (KS_IS_TIMELINE (self), 0);

  step = shown_path_step (self);
  for (guint i = 0; step != NULL && i < step->n_segments; i++)
    n += step->segments[i].slice != KS_NO_INDEX;
  return n;
}

/* The stretches of the path on slices, outlined, and an arrow wherever
 * the path leaves one row for another. */
static void
draw_path (KsTimeline       *self,
           GtkSnapshot      *snapshot,
           const KsTheme    *theme,
           const KsTimeView *view,
           int               width,
           int               height)
{
  const KsPathStep *step = shown_path_step (self);
  const KsPathSegment *prev = NULL;
  double scroll = scroll_offset (self), prev_y = 0;
  gint64 t_end = view->t0 + (gint64)(view->width * view->ns_per_px);
  guint n_arrows = 0;

  for (guint i = 0; step != NULL && i < step->n_segments; i++)
    {
      const KsPathSegment *seg = &step->segments[i];
      double cy, x0, x1, y;

      if (seg->slice == KS_NO_INDEX || !_ks_timeline_slice_content_y (self, seg->track, seg->slice, &cy))
        continue;
      y = KS_RULER_HEIGHT + cy - scroll;
      x0 = KS_HEADER_WIDTH + (seg->start - view->t0) / view->ns_per_px;
      x1 = KS_HEADER_WIDTH + (seg->end - view->t0) / view->ns_per_px;
      if (seg->end >= view->t0 && seg->start <= t_end)
        outline (snapshot, MAX (x0, KS_HEADER_WIDTH - 3), y, MAX (1, MIN (x1, width + 3) - MAX (x0, KS_HEADER_WIDTH - 3)),
                 KS_LANE_HEIGHT - 1, 2, theme->flow);
      if (prev != NULL && prev->track != seg->track && n_arrows < MAX_PATH_ARROWS &&
          MAX (prev->end, seg->start) >= view->t0 && MIN (prev->end, seg->start) <= t_end)
        {
          double px = KS_HEADER_WIDTH + (prev->end - view->t0) / view->ns_per_px;

          draw_arrow (snapshot, theme->flow, px, prev_y + KS_LANE_HEIGHT / 2.0, x0, y + KS_LANE_HEIGHT / 2.0,
                      width, height);
          n_arrows++;
        }
      prev = seg;
      prev_y = y;
    }
}

/* The selected memory block or instant, outlined as a slice is. */
static void
draw_selected_item (KsTimeline       *self,
                    GtkSnapshot      *snapshot,
                    const KsTheme    *theme,
                    const KsTimeView *view,
                    double            scroll)
{
  KsTrace *trace = ks_session_get_trace (self->session);
  guint device, r = KS_NO_INDEX;
  guint32 block, instant;
  const KsRow *row;

  if (ks_session_get_selected_memory_block (self->session, &device, &block))
    {
      KsBlockHit rect;

      r = ks_timeline_layout_find_blocks_row (self->layout, device);
      if (r == KS_NO_INDEX || (row = ks_timeline_layout_get_row (self->layout, r))->y < 0)
        return;
      ks_timeline_layout_block_rect (self->layout, device, block, view, &rect);
      outline (snapshot, KS_HEADER_WIDTH + MAX (rect.x0, -4), KS_RULER_HEIGHT + row->y - scroll + rect.y0,
               MAX (1, MIN (rect.x1, view->width + 4) - MAX (rect.x0, -4)), MAX (1, rect.y1 - rect.y0), 2,
               theme->selection);
    }
  else if (ks_session_get_selected_instant (self->session, &instant))
    {
      double x = floor ((trace->instants[instant].ts - view->t0) / view->ns_per_px);

      if (trace->instants[instant].track < trace->n_tracks)
        r = ks_timeline_layout_find_track_row (self->layout, trace->instants[instant].track);
      if (r == KS_NO_INDEX || (row = ks_timeline_layout_get_row (self->layout, r))->y < 0)
        return;
      /* around the mark's head (ks-timeline-layout-instants.c) */
      outline (snapshot, KS_HEADER_WIDTH + x - 3, KS_RULER_HEIGHT + row->y - scroll + KS_ROW_PADDING, 7, 7, 2,
               theme->selection);
    }
}

void
_ks_timeline_draw_overlays (KsTimeline       *self,
                            GtkSnapshot      *snapshot,
                            PangoLayout      *pl,
                            const KsTheme    *theme,
                            const KsTimeView *view,
                            int               width,
                            int               height)
{
  KsTrace *trace = ks_session_get_trace (self->session);
  double scroll = scroll_offset (self);
  gint64 rs, re;
  guint32 track, slice;

  gtk_snapshot_push_clip (snapshot, &GRAPHENE_RECT_INIT (KS_HEADER_WIDTH, KS_RULER_HEIGHT,
                                                         view->width, height - KS_RULER_HEIGHT));

  _ks_timeline_draw_steps (self, snapshot, pl, theme, view, width, height);

  /* Selected range, or the one being dragged. */
  if (self->drag_mode == DRAG_SELECT && fabs (self->drag_x - self->drag_start_x) >= DRAG_THRESHOLD)
    {
      double a = MIN (self->drag_x, self->drag_start_x), b = MAX (self->drag_x, self->drag_start_x);

      append_rect (snapshot, a, KS_RULER_HEIGHT, b - a, height - KS_RULER_HEIGHT, theme->range_fill);
      append_rect (snapshot, a, KS_RULER_HEIGHT, 1, height, theme->counter_line);
      append_rect (snapshot, b, KS_RULER_HEIGHT, 1, height, theme->counter_line);
    }
  else if (ks_session_get_range (self->session, &rs, &re))
    {
      double a = KS_HEADER_WIDTH + (rs - view->t0) / view->ns_per_px;
      double b = KS_HEADER_WIDTH + (re - view->t0) / view->ns_per_px;

      a = MAX (a, KS_HEADER_WIDTH - 2);
      b = MIN (b, width + 2);
      if (b > a)
        {
          append_rect (snapshot, a, KS_RULER_HEIGHT, b - a, height - KS_RULER_HEIGHT, theme->range_fill);
          append_rect (snapshot, a, KS_RULER_HEIGHT, 1, height, theme->counter_line);
          append_rect (snapshot, b, KS_RULER_HEIGHT, 1, height, theme->counter_line);
        }
    }

  draw_path (self, snapshot, theme, view, width, height);

  /* Hover. */
  if (self->has_hover)
    {
      double cy;

      if (_ks_timeline_slice_content_y (self, self->hover.track, self->hover.slice, &cy))
        outline (snapshot,
                 KS_HEADER_WIDTH + self->hover.x0,
                 KS_RULER_HEIGHT + cy - scroll,
                 MAX (1, self->hover.x1 - self->hover.x0), KS_LANE_HEIGHT - 1, 1,
                 theme->dim_foreground);
    }

  draw_selected_item (self, snapshot, theme, view, scroll);

  /* Selection and its flows. */
  if (ks_session_get_selected_slice (self->session, &track, &slice))
    {
      const KsTrack *t = &trace->tracks[track];
      double cy;

      if (_ks_timeline_slice_content_y (self, track, slice, &cy))
        {
          double x0 = KS_HEADER_WIDTH + (t->start[slice] - view->t0) / view->ns_per_px;
          double x1 = KS_HEADER_WIDTH + (t->end[slice] - view->t0) / view->ns_per_px;

          x0 = MAX (x0, KS_HEADER_WIDTH - 3);
          x1 = MIN (x1, width + 3);
          outline (snapshot, x0, KS_RULER_HEIGHT + cy - scroll, MAX (1, x1 - x0),
                   KS_LANE_HEIGHT - 1, 2, theme->selection);
        }

      for (guint i = 0; i < self->arrows->len; i++)
        {
          const FlowArrow *a = &g_array_index (self->arrows, FlowArrow, i);
          const KsTrack *ft = &trace->tracks[a->from_track];
          const KsTrack *tt = &trace->tracks[a->to_track];
          double fy, ty, fx, tx;

          if (!_ks_timeline_slice_content_y (self, a->from_track, a->from_slice, &fy) ||
              !_ks_timeline_slice_content_y (self, a->to_track, a->to_slice, &ty))
            continue;

          fx = KS_HEADER_WIDTH + (ft->end[a->from_slice] - view->t0) / view->ns_per_px;
          tx = KS_HEADER_WIDTH + (tt->start[a->to_slice] - view->t0) / view->ns_per_px;
          fy = KS_RULER_HEIGHT + fy - scroll + KS_LANE_HEIGHT / 2.0;
          ty = KS_RULER_HEIGHT + ty - scroll + KS_LANE_HEIGHT / 2.0;
          draw_arrow (snapshot, theme->flow, fx, fy, tx, ty, width, height);

          if (a->kind == KS_FLOW_LAUNCH)
            {
              gint64 latency = MAX (0, tt->start[a->to_slice] - ft->end[a->from_slice]);
              g_autofree char *dur = ks_time_format_duration (latency);
              g_autofree char *text = g_strdup_printf (_("launch latency %s"), dur);

              _ks_timeline_draw_text (snapshot, pl, text, (fx + tx) / 2 + 4, (fy + ty) / 2 - 16, 180, 14, theme->flow);
            }
          if (a->n_ops > 1)
            {
              double sx0 = MAX (KS_HEADER_WIDTH + (a->span_start - view->t0) / view->ns_per_px, KS_HEADER_WIDTH - 3);
              double sx1 = MIN (KS_HEADER_WIDTH + (a->span_end - view->t0) / view->ns_per_px, width + 3);
              g_autofree char *span = ks_time_format_duration (a->span_end - a->span_start);
              /* TRANSLATORS: a CUDA graph launch: "graph: 200 operations in 1.23 ms" */
              g_autofree char *text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "graph: %u operation in %s",
                                                                    "graph: %u operations in %s", a->n_ops),
                                                       a->n_ops, span);

              outline (snapshot, sx0, ty - KS_LANE_HEIGHT / 2.0, MAX (1, sx1 - sx0), KS_LANE_HEIGHT - 1, 2, theme->flow);
              _ks_timeline_draw_text (snapshot, pl, text, sx0 + 4, ty + KS_LANE_HEIGHT / 2.0 + 2, 240, 14, theme->flow);
            }
        }
    }

  gtk_snapshot_pop (snapshot);
}
