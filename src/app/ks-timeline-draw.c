/* ks-timeline-draw.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-timeline"

#include "config.h"

#include <math.h>

#include "ks-format.h"
#include "ks-timeline-private.h"

/* The snapshot: row nodes (cached per view), row headers, the ruler,
 * the overlays and the time cursor. */

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
      int tw, th;

      pango_layout_set_text (layout, pt->text, -1);
      pango_layout_set_width (layout, (int)(MAX (1, pt->w) * PANGO_SCALE));
      pango_layout_get_pixel_size (layout, &tw, &th);
      if (pt->backdrop != 0)
        append_rect (snapshot, dx + pt->x - 2, dy + pt->y + (pt->h - th) / 2, tw + 4, th, pt->backdrop);
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

void
_ks_timeline_draw_text (GtkSnapshot *snapshot,
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

/* The rows' text in 8 pt, the groups' titles in 9 pt bold, in the
 * widget's font. */
static void
make_layouts (GtkWidget    *widget,
              PangoLayout **pl,
              PangoLayout **bold)
{
  PangoFontDescription *font;

  *pl = gtk_widget_create_pango_layout (widget, NULL);
  font = pango_font_description_copy (pango_context_get_font_description (gtk_widget_get_pango_context (widget)));
  pango_font_description_set_size (font, 8 * PANGO_SCALE);
  pango_layout_set_font_description (*pl, font);
  pango_layout_set_single_paragraph_mode (*pl, TRUE);
  pango_layout_set_ellipsize (*pl, PANGO_ELLIPSIZE_END);
  *bold = pango_layout_copy (*pl);
  pango_font_description_set_weight (font, PANGO_WEIGHT_BOLD);
  pango_font_description_set_size (font, 9 * PANGO_SCALE);
  pango_layout_set_font_description (*bold, font);
  pango_font_description_free (font);
}

/* A font of a new size or weight is first matched by fontconfig on
 * Pango's threads, which the main thread waits for: 8 ms for these two
 * on the 2-core machine, in the first frame with rows if left to it. */
void
ks_timeline_prepare_fonts (KsTimeline *self)
{
  g_autoptr(PangoLayout) pl = NULL;
  g_autoptr(PangoLayout) bold = NULL;

  g_return_if_fail (KS_IS_TIMELINE (self));

  make_layouts (GTK_WIDGET (self), &pl, &bold);
  pango_layout_set_text (pl, "0 ms", -1);
  pango_layout_get_pixel_size (pl, NULL, NULL);
  pango_layout_set_text (bold, "GPU 0", -1);
  pango_layout_get_pixel_size (bold, NULL, NULL);
}

void
_ks_timeline_snapshot (GtkWidget   *widget,
                       GtkSnapshot *snapshot)
{
  KsTimeline *self = (KsTimeline *)widget;
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);
  g_autoptr(PangoLayout) pl = NULL;
  g_autoptr(PangoLayout) bold = NULL;
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
      _ks_timeline_invalidate_rows (self);
      self->cache_t0 = view.t0;
      self->cache_nspp = view.ns_per_px;
      self->cache_width = view.width;
      self->cache_dark = self->dark;
      self->cache_matches = self->matches;
    }

  make_layouts (widget, &pl, &bold);

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
  _ks_timeline_draw_overlays (self, snapshot, pl, theme, &view, width, height);

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
        _ks_timeline_draw_text (snapshot, pl, label, lx + 4, 2, tw - 8, KS_RULER_HEIGHT - 5, theme->background);
      }
    }
}
