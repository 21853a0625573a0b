/* ks-timeline.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-timeline"

#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>
#include <math.h>

#include "ks-format.h"
#include "ks-render-cairo.h"
#include "ks-timeline.h"

#define DRAG_THRESHOLD 4.0

typedef enum
{
  DRAG_NONE,
  DRAG_PAN,
  DRAG_SELECT,
} DragMode;

typedef struct
{
  guint32 from_track;
  guint32 from_slice;
  guint32 to_track;
  guint32 to_slice;
  guint8  kind;
} FlowArrow;

struct _KsTimeline
{
  GtkWidget         parent_instance;

  KsSession        *session;
  KsTimelineLayout *layout;
  const guint8     *matches;

  GtkAdjustment    *hadjustment;
  GtkAdjustment    *vadjustment;
  guint             hscroll_policy : 1;
  guint             vscroll_policy : 1;
  guint             dark : 1;

  /* Per-row render nodes, valid for one (view, theme, matches) key. */
  GHashTable       *row_nodes;
  double            cache_t0;
  double            cache_nspp;
  int               cache_width;
  gboolean          cache_dark;
  const guint8     *cache_matches;

  double            pointer_x;
  double            pointer_y;
  gboolean          pointer_inside;
  gboolean          has_hover;
  KsHit             hover;

  DragMode          drag_mode;
  double            drag_start_x;
  double            drag_start_y;
  double            drag_t0;
  double            drag_t1;
  double            drag_scroll;
  double            drag_x;

  double            zoom_scale;

  GArray           *arrows;    /* FlowArrow of the selected slice */
};

static void ks_timeline_scrollable_init (GtkScrollableInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (KsTimeline, ks_timeline, GTK_TYPE_WIDGET,
                               G_IMPLEMENT_INTERFACE (GTK_TYPE_SCROLLABLE, ks_timeline_scrollable_init))

/* GtkScrollable's properties, overridden. */
enum {
  PROP_0,
  PROP_HADJUSTMENT,
  PROP_VADJUSTMENT,
  PROP_HSCROLL_POLICY,
  PROP_VSCROLL_POLICY,
};

static void
ks_timeline_scrollable_init (GtkScrollableInterface *iface)
{
}

static void
node_unref0 (gpointer node)
{
  /* Rows with nothing in view cache a NULL node. */
  if (node != NULL)
    gsk_render_node_unref (node);
}

static inline void
rgba_from (GdkRGBA *rgba,
           KsColor  c)
{
  rgba->red = KS_COLOR_R (c);
  rgba->green = KS_COLOR_G (c);
  rgba->blue = KS_COLOR_B (c);
  rgba->alpha = KS_COLOR_A (c);
}

static inline void
append_rect (GtkSnapshot *snapshot,
             float        x,
             float        y,
             float        w,
             float        h,
             KsColor      c)
{
  GdkRGBA rgba;

  rgba_from (&rgba, c);
  gtk_snapshot_append_color (snapshot, &rgba, &GRAPHENE_RECT_INIT (x, y, w, h));
}

static int
time_area_width (KsTimeline *self)
{
  return MAX (1, gtk_widget_get_width (GTK_WIDGET (self)) - KS_HEADER_WIDTH);
}

static void
get_view (KsTimeline *self,
          KsTimeView *view)
{
  double t0 = 0, t1 = 1;

  if (self->session != NULL)
    ks_session_get_visible (self->session, &t0, &t1);

  view->width = time_area_width (self);
  view->t0 = t0;
  view->ns_per_px = MAX (1e-6, (t1 - t0) / view->width);
}

static double
scroll_offset (KsTimeline *self)
{
  return self->vadjustment != NULL ? gtk_adjustment_get_value (self->vadjustment) : 0;
}

double
ks_timeline_time_to_x (KsTimeline *self,
                       double      t)
{
  KsTimeView view;

  g_return_val_if_fail (KS_IS_TIMELINE (self), 0);

  get_view (self, &view);
  return KS_HEADER_WIDTH + (t - view.t0) / view.ns_per_px;
}

double
ks_timeline_x_to_time (KsTimeline *self,
                       double      x)
{
  KsTimeView view;

  g_return_val_if_fail (KS_IS_TIMELINE (self), 0);

  get_view (self, &view);
  return view.t0 + (x - KS_HEADER_WIDTH) * view.ns_per_px;
}

static void
invalidate_rows (KsTimeline *self)
{
  g_hash_table_remove_all (self->row_nodes);
}

static void
update_adjustments (KsTimeline *self)
{
  double page, upper, value;

  if (self->vadjustment == NULL)
    return;

  page = MAX (0, gtk_widget_get_height (GTK_WIDGET (self)) - KS_RULER_HEIGHT);
  upper = self->layout != NULL ? ks_timeline_layout_get_height (self->layout) : 0;
  upper = MAX (upper, page);
  value = CLAMP (gtk_adjustment_get_value (self->vadjustment), 0, upper - page);

  gtk_adjustment_configure (self->vadjustment, value, 0, upper,
                            KS_LANE_HEIGHT, page * 0.9, page);

  if (self->hadjustment != NULL)
    {
      double w = gtk_widget_get_width (GTK_WIDGET (self));

      gtk_adjustment_configure (self->hadjustment, 0, 0, w, 1, w, w);
    }
}

static void
compute_arrows (KsTimeline *self)
{
  KsTrace *trace;
  guint32 track, slice;

  g_array_set_size (self->arrows, 0);

  if (self->session == NULL || !ks_session_get_selected_slice (self->session, &track, &slice))
    return;

  trace = ks_session_get_trace (self->session);
  for (guint32 i = 0; i < trace->n_flows; i++)
    {
      const KsFlow *f = &trace->flows[i];

      if ((f->from_track == track && f->from_slice == slice) ||
          (f->to_track == track && f->to_slice == slice))
        {
          FlowArrow a = { f->from_track, f->from_slice, f->to_track, f->to_slice, f->kind };

          g_array_append_val (self->arrows, a);
        }
    }
}

guint
ks_timeline_get_n_flow_arrows (KsTimeline *self)
{
  g_return_val_if_fail (KS_IS_TIMELINE (self), 0);

  return self->arrows->len;
}

/* Row and lane geometry: content y of a slice's lane, or FALSE. */
static gboolean
slice_content_y (KsTimeline *self,
                 guint32     track,
                 guint32     slice,
                 double     *y)
{
  KsTrace *trace = ks_session_get_trace (self->session);
  guint r = ks_timeline_layout_find_track_row (self->layout, track);
  const KsRow *row;

  if (r == KS_NO_INDEX)
    return FALSE;
  row = ks_timeline_layout_get_row (self->layout, r);
  if (row->y < 0)
    return FALSE;
  *y = row->y + ks_timeline_layout_lane_y (trace->tracks[track].depth[slice]);
  return TRUE;
}

gboolean
ks_timeline_get_slice_point (KsTimeline *self,
                             guint32     track,
                             guint32     slice,
                             double     *x,
                             double     *y)
{
  KsTrace *trace;
  double cy, t0, t1, wy;

  g_return_val_if_fail (KS_IS_TIMELINE (self), FALSE);

  if (self->session == NULL)
    return FALSE;
  trace = ks_session_get_trace (self->session);
  if (track >= trace->n_tracks || slice >= trace->tracks[track].n_slices)
    return FALSE;
  if (!slice_content_y (self, track, slice, &cy))
    return FALSE;

  wy = KS_RULER_HEIGHT + cy - scroll_offset (self) + KS_LANE_HEIGHT / 2.0;
  if (wy < KS_RULER_HEIGHT || wy >= gtk_widget_get_height (GTK_WIDGET (self)))
    return FALSE;

  ks_session_get_visible (self->session, &t0, &t1);
  t0 = MAX (t0, (double)trace->tracks[track].start[slice]);
  t1 = MIN (t1, (double)trace->tracks[track].end[slice]);
  if (x)
    *x = ks_timeline_time_to_x (self, (t0 + t1) / 2);
  if (y)
    *y = wy;
  return TRUE;
}

void
ks_timeline_reveal_track (KsTimeline *self,
                          guint32     track)
{
  guint r;
  const KsRow *row;
  double value, page;

  g_return_if_fail (KS_IS_TIMELINE (self));

  if (self->layout == NULL)
    return;
  r = ks_timeline_layout_find_track_row (self->layout, track);
  if (r == KS_NO_INDEX)
    return;
  row = ks_timeline_layout_get_row (self->layout, r);
  if (row->y < 0)
    {
      ks_timeline_layout_set_expanded (self->layout, row->group, TRUE);
      update_adjustments (self);
      invalidate_rows (self);
    }
  if (self->vadjustment == NULL)
    return;

  value = gtk_adjustment_get_value (self->vadjustment);
  page = gtk_adjustment_get_page_size (self->vadjustment);
  if (row->y < value || row->y + MIN (row->height, page) > value + page)
    gtk_adjustment_set_value (self->vadjustment, MAX (0, row->y - page / 3));
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
ks_timeline_toggle_group (KsTimeline *self,
                          guint       r)
{
  const KsRow *row;

  g_return_if_fail (KS_IS_TIMELINE (self));
  g_return_if_fail (self->layout != NULL);

  row = ks_timeline_layout_get_row (self->layout, r);
  if (row->kind != KS_ROW_GROUP)
    return;
  ks_timeline_layout_set_expanded (self->layout, r, !row->expanded);
  update_adjustments (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
visible_changed_cb (KsTimeline *self,
                    KsSession  *session)
{
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
selection_changed_cb (KsTimeline *self,
                      KsSession  *session)
{
  compute_arrows (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

KsSession *
ks_timeline_get_session (KsTimeline *self)
{
  g_return_val_if_fail (KS_IS_TIMELINE (self), NULL);

  return self->session;
}

KsTimelineLayout *
ks_timeline_get_layout (KsTimeline *self)
{
  g_return_val_if_fail (KS_IS_TIMELINE (self), NULL);

  return self->layout;
}

void
ks_timeline_set_session (KsTimeline *self,
                         KsSession  *session)
{
  g_return_if_fail (KS_IS_TIMELINE (self));
  g_return_if_fail (!session || KS_IS_SESSION (session));

  if (self->session == session)
    return;

  if (self->session != NULL)
    g_signal_handlers_disconnect_by_data (self->session, self);
  g_clear_object (&self->session);
  g_clear_pointer (&self->layout, ks_timeline_layout_free);
  invalidate_rows (self);
  self->has_hover = FALSE;

  if (session != NULL)
    {
      self->session = g_object_ref (session);
      self->layout = ks_timeline_layout_new (ks_session_get_trace (session));
      g_signal_connect_object (session, "visible-changed",
                               G_CALLBACK (visible_changed_cb), self, G_CONNECT_SWAPPED);
      g_signal_connect_object (session, "selection-changed",
                               G_CALLBACK (selection_changed_cb), self, G_CONNECT_SWAPPED);
      g_signal_connect_object (session, "range-changed",
                               G_CALLBACK (visible_changed_cb), self, G_CONNECT_SWAPPED);
    }

  compute_arrows (self);
  update_adjustments (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
ks_timeline_set_matches (KsTimeline   *self,
                         const guint8 *matches)
{
  g_return_if_fail (KS_IS_TIMELINE (self));

  self->matches = matches;
  /* The caller may reuse the buffer, so the key alone is not enough. */
  invalidate_rows (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* Drawing ---------------------------------------------------------------- */

/* The primitives, shifted by (@dx, @dy); group titles in @bold. */
static void
replay (GtkSnapshot   *snapshot,
        PangoLayout   *pl,
        PangoLayout   *bold,
        const KsPrims *prims,
        double         dx,
        double         dy)
{
  for (guint i = 0; i < prims->rects->len; i++)
    {
      const KsPrimRect *pr = &g_array_index (prims->rects, KsPrimRect, i);

      append_rect (snapshot, dx + pr->x, dy + pr->y, pr->w, pr->h, pr->color);
    }
  for (guint i = 0; i < prims->texts->len; i++)
    {
      const KsPrimText *pt = &g_array_index (prims->texts, KsPrimText, i);
      PangoLayout *layout = pt->bold && bold != NULL ? bold : pl;
      GdkRGBA rgba;
      int th;

      pango_layout_set_text (layout, pt->text, -1);
      pango_layout_set_width (layout, (int)(MAX (1, pt->w) * PANGO_SCALE));
      pango_layout_get_pixel_size (layout, NULL, &th);
      rgba_from (&rgba, pt->color);
      gtk_snapshot_save (snapshot);
      gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT (dx + pt->x, dy + pt->y + (pt->h - th) / 2));
      gtk_snapshot_append_layout (snapshot, layout, &rgba);
      gtk_snapshot_restore (snapshot);
    }
}

static GskRenderNode *
build_row_node (KsTimeline       *self,
                guint             r,
                const KsTimeView *view,
                const KsTheme    *theme,
                PangoLayout      *pl)
{
  GtkSnapshot *snapshot;
  KsPrims prims;

  ks_prims_init (&prims);
  ks_timeline_layout_build_prims (self->layout, r, view, theme, self->matches, &prims);

  snapshot = gtk_snapshot_new ();
  replay (snapshot, pl, NULL, &prims, 0, 0);
  ks_prims_clear (&prims);

  return gtk_snapshot_free_to_node (snapshot);
}

static void
draw_text (GtkSnapshot *snapshot,
           PangoLayout *pl,
           const char  *text,
           double       x,
           double       y,
           double       w,
           double       h,
           KsColor      color)
{
  GdkRGBA rgba;
  int th;

  pango_layout_set_text (pl, text, -1);
  pango_layout_set_width (pl, (int)(MAX (1, w) * PANGO_SCALE));
  pango_layout_get_pixel_size (pl, NULL, &th);
  rgba_from (&rgba, color);
  gtk_snapshot_save (snapshot);
  gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT (x, y + (h - th) / 2));
  gtk_snapshot_append_layout (snapshot, pl, &rgba);
  gtk_snapshot_restore (snapshot);
}

static void
draw_ruler (KsTimeline       *self,
            GtkSnapshot      *snapshot,
            PangoLayout      *pl,
            const KsTheme    *theme,
            const KsTimeView *view,
            int               width,
            int               height)
{
  KsPrims prims;

  ks_prims_init (&prims);
  ks_timeline_layout_build_ruler (view, theme, width, height, KS_HEADER_WIDTH, KS_RULER_HEIGHT, &prims);
  replay (snapshot, pl, NULL, &prims, 0, 0);
  ks_prims_clear (&prims);
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
            const KsTheme *theme,
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
  cairo_set_source_rgba (cr, KS_COLOR_R (theme->flow), KS_COLOR_G (theme->flow),
                         KS_COLOR_B (theme->flow), 1.0);
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

static void
draw_overlays (KsTimeline       *self,
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

  /* Hover. */
  if (self->has_hover)
    {
      double cy;

      if (slice_content_y (self, self->hover.track, self->hover.slice, &cy))
        outline (snapshot,
                 KS_HEADER_WIDTH + self->hover.x0,
                 KS_RULER_HEIGHT + cy - scroll,
                 MAX (1, self->hover.x1 - self->hover.x0), KS_LANE_HEIGHT - 1, 1,
                 theme->dim_foreground);
    }

  /* Selection and its flows. */
  if (ks_session_get_selected_slice (self->session, &track, &slice))
    {
      const KsTrack *t = &trace->tracks[track];
      double cy;

      if (slice_content_y (self, track, slice, &cy))
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

          if (!slice_content_y (self, a->from_track, a->from_slice, &fy) ||
              !slice_content_y (self, a->to_track, a->to_slice, &ty))
            continue;

          fx = KS_HEADER_WIDTH + (ft->end[a->from_slice] - view->t0) / view->ns_per_px;
          tx = KS_HEADER_WIDTH + (tt->start[a->to_slice] - view->t0) / view->ns_per_px;
          fy = KS_RULER_HEIGHT + fy - scroll + KS_LANE_HEIGHT / 2.0;
          ty = KS_RULER_HEIGHT + ty - scroll + KS_LANE_HEIGHT / 2.0;
          draw_arrow (snapshot, theme, fx, fy, tx, ty, width, height);

          if (a->kind == KS_FLOW_LAUNCH)
            {
              gint64 latency = MAX (0, tt->start[a->to_slice] - ft->end[a->from_slice]);
              g_autofree char *dur = ks_time_format_duration (latency);
              g_autofree char *text = g_strdup_printf (_("launch latency %s"), dur);

              draw_text (snapshot, pl, text, (fx + tx) / 2 + 4, (fy + ty) / 2 - 16, 180, 14, theme->flow);
            }
        }
    }

  gtk_snapshot_pop (snapshot);
}

static void
ks_timeline_snapshot (GtkWidget   *widget,
                      GtkSnapshot *snapshot)
{
  KsTimeline *self = (KsTimeline *)widget;
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);
  g_autoptr(PangoLayout) pl = NULL;
  g_autoptr(PangoLayout) bold = NULL;
  PangoFontDescription *font;
  const KsTheme *theme;
  KsTimeView view;
  KsPrims headers;
  double scroll;
  guint n_visible;

  theme = ks_theme_get (self->dark);
  append_rect (snapshot, 0, 0, width, height, theme->background);

  if (self->layout == NULL)
    return;

  get_view (self, &view);
  scroll = scroll_offset (self);

  if (view.t0 != self->cache_t0 || view.ns_per_px != self->cache_nspp ||
      view.width != self->cache_width || self->dark != self->cache_dark ||
      self->matches != self->cache_matches)
    {
      invalidate_rows (self);
      self->cache_t0 = view.t0;
      self->cache_nspp = view.ns_per_px;
      self->cache_width = view.width;
      self->cache_dark = self->dark;
      self->cache_matches = self->matches;
    }

  pl = gtk_widget_create_pango_layout (widget, NULL);
  font = pango_font_description_copy (pango_context_get_font_description (gtk_widget_get_pango_context (widget)));
  pango_font_description_set_size (font, 8 * PANGO_SCALE);
  pango_layout_set_font_description (pl, font);
  pango_layout_set_single_paragraph_mode (pl, TRUE);
  pango_layout_set_ellipsize (pl, PANGO_ELLIPSIZE_END);
  bold = pango_layout_copy (pl);
  pango_font_description_set_weight (font, PANGO_WEIGHT_BOLD);
  pango_font_description_set_size (font, 9 * PANGO_SCALE);
  pango_layout_set_font_description (bold, font);
  pango_font_description_free (font);

  append_rect (snapshot, 0, 0, KS_HEADER_WIDTH, height, theme->header_background);

  gtk_snapshot_push_clip (snapshot, &GRAPHENE_RECT_INIT (0, KS_RULER_HEIGHT, width, height - KS_RULER_HEIGHT));

  ks_prims_init (&headers);
  n_visible = ks_timeline_layout_get_n_visible (self->layout);
  for (guint pos = ks_timeline_layout_position_at_y (self->layout, scroll); pos < n_visible; pos++)
    {
      guint r = ks_timeline_layout_get_visible (self->layout, pos);
      const KsRow *row = ks_timeline_layout_get_row (self->layout, r);
      double y = KS_RULER_HEIGHT + row->y - scroll;
      GskRenderNode *node = NULL;

      if (y >= height)
        break;

      if (row->kind != KS_ROW_GROUP &&
          !g_hash_table_lookup_extended (self->row_nodes, GUINT_TO_POINTER (r), NULL, (gpointer *)&node))
        {
          node = build_row_node (self, r, &view, theme, pl);
          g_hash_table_insert (self->row_nodes, GUINT_TO_POINTER (r), node);
        }

      if (row->kind != KS_ROW_GROUP && node != NULL)
        {
          gtk_snapshot_save (snapshot);
          gtk_snapshot_push_clip (snapshot, &GRAPHENE_RECT_INIT (KS_HEADER_WIDTH, y, view.width, row->height));
          gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT (KS_HEADER_WIDTH, y));
          gtk_snapshot_append_node (snapshot, node);
          gtk_snapshot_pop (snapshot);
          gtk_snapshot_restore (snapshot);
        }

      ks_prims_reset (&headers);
      ks_timeline_layout_build_header (self->layout, r, theme, width, KS_HEADER_WIDTH, &headers);
      replay (snapshot, pl, bold, &headers, 0, y);
    }
  ks_prims_clear (&headers);

  gtk_snapshot_pop (snapshot);

  append_rect (snapshot, KS_HEADER_WIDTH - 1, 0, 1, height, theme->row_separator);
  draw_ruler (self, snapshot, pl, theme, &view, width, height);
  draw_overlays (self, snapshot, pl, theme, &view, width, height);

  /* Time cursor: a hairline under the pointer and its time in the ruler. */
  if (self->pointer_inside && self->pointer_x >= KS_HEADER_WIDTH && self->drag_mode != DRAG_PAN)
    {
      double t = view.t0 + (self->pointer_x - KS_HEADER_WIDTH) * view.ns_per_px;
      gint64 step = MAX (1, ks_time_view_tick_step (&view) / 100);
      g_autofree char *label = ks_time_format_tick ((gint64)llround (t / step) * step, step,
                                                    (gint64)MAX (fabs (view.t0), fabs (view.t0 + view.ns_per_px * view.width)));
      int tw;

      append_rect (snapshot, floor (self->pointer_x), KS_RULER_HEIGHT, 1, height - KS_RULER_HEIGHT,
                   theme->dark ? 0xffffff40 : 0x00000040);
      pango_layout_set_text (pl, label, -1);
      pango_layout_set_width (pl, -1);
      pango_layout_get_pixel_size (pl, &tw, NULL);
      tw += 8;
      {
        double lx = MIN (self->pointer_x - tw / 2.0, width - tw);

        lx = MAX (lx, KS_HEADER_WIDTH);
        append_rect (snapshot, lx, 2, tw, KS_RULER_HEIGHT - 5, theme->foreground);
        draw_text (snapshot, pl, label, lx + 4, 2, tw - 8, KS_RULER_HEIGHT - 5, theme->background);
      }
    }
}

/* Input ------------------------------------------------------------------ */

static gboolean
hit_at (KsTimeline *self,
        double      x,
        double      y,
        KsHit      *hit)
{
  KsTimeView view;
  double cy;
  guint r;
  const KsRow *row;

  if (self->layout == NULL || x < KS_HEADER_WIDTH || y < KS_RULER_HEIGHT)
    return FALSE;

  cy = y - KS_RULER_HEIGHT + scroll_offset (self);
  r = ks_timeline_layout_row_at_y (self->layout, cy);
  if (r == KS_NO_INDEX)
    return FALSE;
  row = ks_timeline_layout_get_row (self->layout, r);
  get_view (self, &view);
  return ks_timeline_layout_hit (self->layout, r, &view, x - KS_HEADER_WIDTH, cy - row->y, hit);
}

static double
anchor_time (KsTimeline *self)
{
  double t0, t1;

  ks_session_get_visible (self->session, &t0, &t1);
  if (self->pointer_inside && self->pointer_x >= KS_HEADER_WIDTH)
    return ks_timeline_x_to_time (self, self->pointer_x);
  return (t0 + t1) / 2;
}

static void
update_hover (KsTimeline *self)
{
  KsHit hit;
  gboolean has = self->pointer_inside && hit_at (self, self->pointer_x, self->pointer_y, &hit);

  if (has != self->has_hover ||
      (has && (hit.track != self->hover.track || hit.slice != self->hover.slice ||
               hit.count != self->hover.count || hit.x0 != self->hover.x0)))
    {
      self->has_hover = has;
      if (has)
        self->hover = hit;
      gtk_widget_queue_draw (GTK_WIDGET (self));
    }
}

static void
motion_cb (KsTimeline               *self,
           double                    x,
           double                    y,
           GtkEventControllerMotion *motion)
{
  self->pointer_x = x;
  self->pointer_y = y;
  self->pointer_inside = TRUE;
  update_hover (self);
  /* The time cursor follows the pointer; row nodes stay cached. */
  if (x >= KS_HEADER_WIDTH)
    gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
leave_cb (KsTimeline               *self,
          GtkEventControllerMotion *motion)
{
  self->pointer_inside = FALSE;
  update_hover (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static gboolean
scroll_cb (KsTimeline               *self,
           double                    dx,
           double                    dy,
           GtkEventControllerScroll *scroll)
{
  GdkModifierType state;
  GdkScrollUnit unit;
  double t0, t1, span;

  if (self->session == NULL)
    return FALSE;

  state = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (scroll));
  unit = gtk_event_controller_scroll_get_unit (scroll);
  ks_session_get_visible (self->session, &t0, &t1);
  span = t1 - t0;

  if (state & GDK_CONTROL_MASK)
    {
      /* A wheel notch zooms by ~18 %; touchpads report pixels. */
      double k = unit == GDK_SCROLL_UNIT_WHEEL ? 0.2 : 0.005;

      ks_session_push_history (self->session);
      ks_session_zoom (self->session, exp (dy * k), anchor_time (self));
      update_hover (self);
      return TRUE;
    }

  if (state & GDK_SHIFT_MASK)
    {
      double d = dy != 0 ? dy : dx;

      if (unit == GDK_SCROLL_UNIT_WHEEL)
        ks_session_pan (self->session, d * span * 0.1);
      else
        ks_session_pan (self->session, d * span / time_area_width (self));
      update_hover (self);
      return TRUE;
    }

  if (dx != 0)
    {
      if (unit == GDK_SCROLL_UNIT_WHEEL)
        ks_session_pan (self->session, dx * span * 0.1);
      else
        ks_session_pan (self->session, dx * span / time_area_width (self));
      update_hover (self);
      return dy == 0;
    }

  return FALSE;
}

static void
zoom_begin_cb (KsTimeline     *self,
               GdkEventSequence *sequence,
               GtkGesture     *gesture)
{
  self->zoom_scale = 1.0;
  if (self->session != NULL)
    ks_session_push_history (self->session);
}

static void
zoom_scale_changed_cb (KsTimeline     *self,
                       double          scale,
                       GtkGestureZoom *gesture)
{
  double cx, cy;

  if (self->session == NULL || scale <= 0)
    return;

  /* Anchor at the fingers' centre; without touch points (a synthetic
   * scale change) at the pointer. */
  if (!gtk_gesture_is_active (GTK_GESTURE (gesture)) ||
      !gtk_gesture_get_bounding_box_center (GTK_GESTURE (gesture), &cx, &cy))
    cx = self->pointer_x;
  ks_session_zoom (self->session, self->zoom_scale / scale, ks_timeline_x_to_time (self, cx));
  self->zoom_scale = scale;
}

static void
drag_begin_cb (KsTimeline     *self,
               double          x,
               double          y,
               GtkGestureDrag *gesture)
{
  guint button = gtk_gesture_single_get_current_button (GTK_GESTURE_SINGLE (gesture));
  GdkModifierType state = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (gesture));

  self->drag_mode = DRAG_NONE;
  if (self->session == NULL)
    return;

  self->drag_start_x = x;
  self->drag_start_y = y;
  self->drag_x = x;
  self->drag_scroll = scroll_offset (self);
  ks_session_get_visible (self->session, &self->drag_t0, &self->drag_t1);

  if (button == GDK_BUTTON_MIDDLE || (state & GDK_SHIFT_MASK) || y < KS_RULER_HEIGHT)
    self->drag_mode = DRAG_PAN;
  else if (x >= KS_HEADER_WIDTH && (button == 0 || button == GDK_BUTTON_PRIMARY))
    self->drag_mode = DRAG_SELECT;

  if (self->drag_mode == DRAG_PAN)
    {
      ks_session_push_history (self->session);
      gtk_widget_set_cursor_from_name (GTK_WIDGET (self), "grabbing");
    }
}

static void
drag_update_cb (KsTimeline     *self,
                double          dx,
                double          dy,
                GtkGestureDrag *gesture)
{
  switch (self->drag_mode)
    {
    case DRAG_PAN:
      {
        double nspp = (self->drag_t1 - self->drag_t0) / time_area_width (self);

        ks_session_set_visible (self->session, self->drag_t0 - dx * nspp, self->drag_t1 - dx * nspp);
        if (self->vadjustment != NULL && self->drag_start_y >= KS_RULER_HEIGHT)
          gtk_adjustment_set_value (self->vadjustment, self->drag_scroll - dy);
      }
      break;

    case DRAG_SELECT:
      self->drag_x = CLAMP (self->drag_start_x + dx, KS_HEADER_WIDTH, gtk_widget_get_width (GTK_WIDGET (self)));
      if (fabs (dx) >= DRAG_THRESHOLD)
        gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_CLAIMED);
      gtk_widget_queue_draw (GTK_WIDGET (self));
      break;

    case DRAG_NONE:
    default:
      break;
    }
}

static void
drag_end_cb (KsTimeline     *self,
             double          dx,
             double          dy,
             GtkGestureDrag *gesture)
{
  DragMode mode = self->drag_mode;

  self->drag_mode = DRAG_NONE;
  gtk_widget_set_cursor (GTK_WIDGET (self), NULL);

  if (mode == DRAG_SELECT && fabs (dx) >= DRAG_THRESHOLD)
    {
      double a = ks_timeline_x_to_time (self, self->drag_start_x);
      double b = ks_timeline_x_to_time (self, CLAMP (self->drag_start_x + dx, KS_HEADER_WIDTH,
                                                     gtk_widget_get_width (GTK_WIDGET (self))));

      ks_session_select_range (self->session, (gint64)llround (MIN (a, b)), (gint64)llround (MAX (a, b)));
    }
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
click_pressed_cb (KsTimeline      *self,
                  int              n_press,
                  double           x,
                  double           y,
                  GtkGestureClick *gesture)
{
  gtk_widget_grab_focus (GTK_WIDGET (self));
}

/* Clicks act on release: a press that turns into a drag selects a range
 * instead, and the click gesture is cancelled before it releases. */
static void
click_released_cb (KsTimeline      *self,
                   int              n_press,
                   double           x,
                   double           y,
                   GtkGestureClick *gesture)
{
  KsHit hit;

  if (self->layout == NULL)
    return;

  if (y >= KS_RULER_HEIGHT && x < KS_HEADER_WIDTH)
    {
      guint r = ks_timeline_layout_row_at_y (self->layout, y - KS_RULER_HEIGHT + scroll_offset (self));

      if (r != KS_NO_INDEX && n_press == 1 &&
          ks_timeline_layout_get_row (self->layout, r)->kind == KS_ROW_GROUP)
        ks_timeline_toggle_group (self, r);
      return;
    }

  if (y < KS_RULER_HEIGHT)
    return;

  if (!hit_at (self, x, y, &hit))
    {
      if (n_press == 1)
        {
          ks_session_clear_selection (self->session);
          ks_session_clear_range (self->session);
        }
      return;
    }

  /* Double-click zooms to a slice; a click on a folded block zooms to
   * it, as there is no single slice to select there. */
  if (n_press == 2 || hit.count > 1)
    {
      ks_session_fit (self->session, hit.start, hit.end);
      return;
    }

  ks_session_select_slice (self->session, hit.track, hit.slice);
}

/* The value of a counter row at the pointer: the last sample at or
 * before its time. */
static char *
counter_tooltip (KsTimeline   *self,
                 const KsRow  *row,
                 double        x)
{
  const KsCounter *c = ks_timeline_layout_get_counter (self->layout, row->index);
  KsTrace *trace = ks_session_get_trace (self->session);
  double t = ks_timeline_x_to_time (self, x);
  guint32 lo = 0, hi = c->n_samples;
  g_autofree char *value = NULL;
  g_autofree char *when = NULL;

  while (lo < hi)
    {
      guint32 mid = lo + (hi - lo) / 2;

      if ((double)c->ts[mid] <= t)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo == 0)
    return NULL;

  if (ks_timeline_layout_counter_is_bytes (self->layout, row->index))
    value = ks_format_bytes ((guint64)MAX (0, c->value[lo - 1]));
  else if (*ks_trace_string (trace, c->unit))
    value = g_strdup_printf ("%.4g %s", c->value[lo - 1], ks_trace_string (trace, c->unit));
  else
    value = g_strdup_printf ("%.4g", c->value[lo - 1]);
  when = ks_time_format_duration (c->ts[lo - 1]);

  return g_markup_printf_escaped (_("<b>%s</b>\n%s since %s"), row->label, value, when);
}

char *
ks_timeline_dup_tooltip_markup (KsTimeline   *self,
                                double        x,
                                double        y,
                                GdkRectangle *area)
{
  KsTrace *trace;
  KsHit hit;
  g_autofree char *dur = NULL;
  char *markup;
  double cy;

  g_return_val_if_fail (KS_IS_TIMELINE (self), NULL);

  if (area != NULL)
    area->width = area->height = 0;

  if (!hit_at (self, x, y, &hit))
    {
      guint r;
      const KsRow *row;

      if (self->layout == NULL || x < KS_HEADER_WIDTH || y < KS_RULER_HEIGHT)
        return NULL;
      r = ks_timeline_layout_row_at_y (self->layout, y - KS_RULER_HEIGHT + scroll_offset (self));
      if (r == KS_NO_INDEX)
        return NULL;
      row = ks_timeline_layout_get_row (self->layout, r);
      if (row->kind != KS_ROW_COUNTER)
        return NULL;
      return counter_tooltip (self, row, x);
    }

  trace = ks_session_get_trace (self->session);
  dur = ks_time_format_duration (hit.end - hit.start);

  if (hit.count > 1)
    markup = g_markup_printf_escaped (_("<b>%u events</b> folded (too small to draw)\n%s\nClick to zoom in"),
                                      hit.count, dur);
  else
    markup = g_markup_printf_escaped ("<b>%s</b>\n%s · %s",
                                      ks_trace_string (trace, trace->tracks[hit.track].name_id[hit.slice]),
                                      dur,
                                      ks_slice_kind_to_string (trace->tracks[hit.track].slice_kind[hit.slice]));

  if (area != NULL && slice_content_y (self, hit.track, hit.slice, &cy))
    {
      area->x = (int)floor (KS_HEADER_WIDTH + MAX (hit.x0, 0));
      area->width = MAX (1, (int)ceil (MIN (hit.x1, time_area_width (self)) - MAX (hit.x0, 0)));
      area->y = (int)(KS_RULER_HEIGHT + cy - scroll_offset (self));
      area->height = KS_LANE_HEIGHT;
    }

  return markup;
}

static gboolean
ks_timeline_query_tooltip (GtkWidget  *widget,
                           int         x,
                           int         y,
                           gboolean    keyboard,
                           GtkTooltip *tooltip)
{
  KsTimeline *self = (KsTimeline *)widget;
  g_autofree char *markup = NULL;
  GdkRectangle area;

  if (keyboard)
    return FALSE;
  markup = ks_timeline_dup_tooltip_markup (self, x, y, &area);
  if (markup == NULL)
    return FALSE;
  gtk_tooltip_set_markup (tooltip, markup);
  if (area.width > 0)
    gtk_tooltip_set_tip_area (tooltip, &area);
  return TRUE;
}

/* Keyboard actions: W/S zoom at the pointer, A/D pan, F fits; the
 * window binds their keys. */

static void
zoom_step (KsTimeline *self,
           double      factor)
{
  if (self->session == NULL)
    return;
  ks_session_push_history (self->session);
  ks_session_zoom (self->session, factor, anchor_time (self));
}

static void
zoom_in_action (GtkWidget  *widget,
                const char *action_name,
                GVariant   *param)
{
  zoom_step ((KsTimeline *)widget, 0.8);
}

static void
zoom_out_action (GtkWidget  *widget,
                 const char *action_name,
                 GVariant   *param)
{
  zoom_step ((KsTimeline *)widget, 1.25);
}

static void
pan_action (GtkWidget  *widget,
            const char *action_name,
            GVariant   *param)
{
  KsTimeline *self = (KsTimeline *)widget;
  double t0, t1;

  if (self->session == NULL)
    return;
  ks_session_get_visible (self->session, &t0, &t1);
  ks_session_pan (self->session, g_variant_get_int32 (param) * (t1 - t0) * 0.1);
}

static void
fit_selection_action (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *param)
{
  KsTimeline *self = (KsTimeline *)widget;
  KsTrace *trace;
  guint32 track, slice;
  gint64 a, b;

  if (self->session == NULL)
    return;
  trace = ks_session_get_trace (self->session);

  if (ks_session_get_range (self->session, &a, &b))
    ks_session_fit (self->session, a, b);
  else if (ks_session_get_selected_slice (self->session, &track, &slice))
    ks_session_fit (self->session, trace->tracks[track].start[slice], trace->tracks[track].end[slice]);
  else
    ks_session_fit_all (self->session);
}

static void
clear_selection_action (GtkWidget  *widget,
                        const char *action_name,
                        GVariant   *param)
{
  KsTimeline *self = (KsTimeline *)widget;

  if (self->session == NULL)
    return;
  ks_session_clear_selection (self->session);
  ks_session_clear_range (self->session);
}

static void
dark_changed_cb (KsTimeline      *self,
                 GParamSpec      *pspec,
                 AdwStyleManager *manager)
{
  self->dark = adw_style_manager_get_dark (manager);
  invalidate_rows (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
vadjustment_value_changed_cb (KsTimeline    *self,
                              GtkAdjustment *adjustment)
{
  update_hover (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
set_vadjustment (KsTimeline    *self,
                 GtkAdjustment *adjustment)
{
  if (self->vadjustment == adjustment)
    return;
  if (self->vadjustment != NULL)
    g_signal_handlers_disconnect_by_func (self->vadjustment, vadjustment_value_changed_cb, self);
  g_set_object (&self->vadjustment, adjustment);
  if (adjustment != NULL)
    g_signal_connect_object (adjustment, "value-changed",
                             G_CALLBACK (vadjustment_value_changed_cb), self, G_CONNECT_SWAPPED);
  update_adjustments (self);
}

static void
ks_timeline_size_allocate (GtkWidget *widget,
                           int        width,
                           int        height,
                           int        baseline)
{
  update_adjustments (KS_TIMELINE (widget));
}

static void
ks_timeline_measure (GtkWidget      *widget,
                     GtkOrientation  orientation,
                     int             for_size,
                     int            *minimum,
                     int            *natural,
                     int            *minimum_baseline,
                     int            *natural_baseline)
{
  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    {
      *minimum = KS_HEADER_WIDTH + 100;
      *natural = KS_HEADER_WIDTH + 800;
    }
  else
    {
      *minimum = KS_RULER_HEIGHT + 60;
      *natural = KS_RULER_HEIGHT + 400;
    }
}

static void
ks_timeline_get_property (GObject    *object,
                          guint       prop_id,
                          GValue     *value,
                          GParamSpec *pspec)
{
  KsTimeline *self = KS_TIMELINE (object);

  switch (prop_id)
    {
    case PROP_HADJUSTMENT:
      g_value_set_object (value, self->hadjustment);
      break;

    case PROP_VADJUSTMENT:
      g_value_set_object (value, self->vadjustment);
      break;

    case PROP_HSCROLL_POLICY:
      g_value_set_enum (value, self->hscroll_policy);
      break;

    case PROP_VSCROLL_POLICY:
      g_value_set_enum (value, self->vscroll_policy);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ks_timeline_set_property (GObject      *object,
                          guint         prop_id,
                          const GValue *value,
                          GParamSpec   *pspec)
{
  KsTimeline *self = KS_TIMELINE (object);

  switch (prop_id)
    {
    case PROP_HADJUSTMENT:
      g_set_object (&self->hadjustment, g_value_get_object (value));
      update_adjustments (self);
      break;

    case PROP_VADJUSTMENT:
      set_vadjustment (self, g_value_get_object (value));
      break;

    case PROP_HSCROLL_POLICY:
      self->hscroll_policy = g_value_get_enum (value);
      break;

    case PROP_VSCROLL_POLICY:
      self->vscroll_policy = g_value_get_enum (value);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ks_timeline_dispose (GObject *object)
{
  KsTimeline *self = (KsTimeline *)object;

  if (self->session != NULL)
    g_signal_handlers_disconnect_by_data (self->session, self);
  g_clear_object (&self->session);
  g_clear_pointer (&self->layout, ks_timeline_layout_free);
  if (self->vadjustment != NULL)
    g_signal_handlers_disconnect_by_func (self->vadjustment, vadjustment_value_changed_cb, self);
  g_clear_object (&self->vadjustment);
  g_clear_object (&self->hadjustment);
  if (self->row_nodes != NULL)
    g_hash_table_remove_all (self->row_nodes);

  G_OBJECT_CLASS (ks_timeline_parent_class)->dispose (object);
}

static void
ks_timeline_finalize (GObject *object)
{
  KsTimeline *self = (KsTimeline *)object;

  g_clear_pointer (&self->row_nodes, g_hash_table_unref);
  g_clear_pointer (&self->arrows, g_array_unref);

  G_OBJECT_CLASS (ks_timeline_parent_class)->finalize (object);
}

static void
ks_timeline_class_init (KsTimelineClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ks_timeline_dispose;
  object_class->finalize = ks_timeline_finalize;
  object_class->get_property = ks_timeline_get_property;
  object_class->set_property = ks_timeline_set_property;

  widget_class->snapshot = ks_timeline_snapshot;
  widget_class->size_allocate = ks_timeline_size_allocate;
  widget_class->measure = ks_timeline_measure;
  widget_class->query_tooltip = ks_timeline_query_tooltip;

  g_object_class_override_property (object_class, PROP_HADJUSTMENT, "hadjustment");
  g_object_class_override_property (object_class, PROP_VADJUSTMENT, "vadjustment");
  g_object_class_override_property (object_class, PROP_HSCROLL_POLICY, "hscroll-policy");
  g_object_class_override_property (object_class, PROP_VSCROLL_POLICY, "vscroll-policy");

  gtk_widget_class_set_css_name (widget_class, "kstimeline");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GRID);

  gtk_widget_class_install_action (widget_class, "timeline.zoom-in", NULL, zoom_in_action);
  gtk_widget_class_install_action (widget_class, "timeline.zoom-out", NULL, zoom_out_action);
  gtk_widget_class_install_action (widget_class, "timeline.pan", "i", pan_action);
  gtk_widget_class_install_action (widget_class, "timeline.fit-selection", NULL, fit_selection_action);
  gtk_widget_class_install_action (widget_class, "timeline.clear-selection", NULL, clear_selection_action);

  /* W/S/A/D/F and Esc are window shortcuts (ks-window-actions.c), so they
   * work with the focus anywhere; the arrows move the focus elsewhere and
   * pan only here. */
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Left, 0, "timeline.pan", "i", -1);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Right, 0, "timeline.pan", "i", 1);
}

static void
ks_timeline_init (KsTimeline *self)
{
  GtkEventController *controller;
  GtkGesture *gesture;
  AdwStyleManager *manager = adw_style_manager_get_default ();

  self->row_nodes = g_hash_table_new_full (NULL, NULL, NULL, node_unref0);
  self->arrows = g_array_new (FALSE, FALSE, sizeof (FlowArrow));
  self->cache_t0 = NAN;

  gtk_widget_set_focusable (GTK_WIDGET (self), TRUE);
  gtk_widget_set_has_tooltip (GTK_WIDGET (self), TRUE);
  gtk_widget_set_overflow (GTK_WIDGET (self), GTK_OVERFLOW_HIDDEN);

  controller = gtk_event_controller_motion_new ();
  gtk_event_controller_set_static_name (controller, "ks-timeline-motion");
  g_signal_connect_swapped (controller, "enter", G_CALLBACK (motion_cb), self);
  g_signal_connect_swapped (controller, "motion", G_CALLBACK (motion_cb), self);
  g_signal_connect_swapped (controller, "leave", G_CALLBACK (leave_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), controller);

  controller = gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_BOTH_AXES);
  gtk_event_controller_set_static_name (controller, "ks-timeline-scroll");
  gtk_event_controller_set_propagation_phase (controller, GTK_PHASE_CAPTURE);
  g_signal_connect_swapped (controller, "scroll", G_CALLBACK (scroll_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), controller);

  gesture = gtk_gesture_zoom_new ();
  gtk_event_controller_set_static_name (GTK_EVENT_CONTROLLER (gesture), "ks-timeline-zoom");
  g_signal_connect_swapped (gesture, "begin", G_CALLBACK (zoom_begin_cb), self);
  g_signal_connect_swapped (gesture, "scale-changed", G_CALLBACK (zoom_scale_changed_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (gesture));

  gesture = gtk_gesture_drag_new ();
  gtk_event_controller_set_static_name (GTK_EVENT_CONTROLLER (gesture), "ks-timeline-drag");
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (gesture), 0);
  g_signal_connect_swapped (gesture, "drag-begin", G_CALLBACK (drag_begin_cb), self);
  g_signal_connect_swapped (gesture, "drag-update", G_CALLBACK (drag_update_cb), self);
  g_signal_connect_swapped (gesture, "drag-end", G_CALLBACK (drag_end_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (gesture));

  gesture = gtk_gesture_click_new ();
  gtk_event_controller_set_static_name (GTK_EVENT_CONTROLLER (gesture), "ks-timeline-click");
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (gesture), GDK_BUTTON_PRIMARY);
  g_signal_connect_swapped (gesture, "pressed", G_CALLBACK (click_pressed_cb), self);
  g_signal_connect_swapped (gesture, "released", G_CALLBACK (click_released_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (gesture));

  self->dark = adw_style_manager_get_dark (manager);
  g_signal_connect_object (manager, "notify::dark", G_CALLBACK (dark_changed_cb), self, G_CONNECT_SWAPPED);
}

GtkWidget *
ks_timeline_new (void)
{
  return g_object_new (KS_TYPE_TIMELINE, NULL);
}
