/* ks-render-cairo.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-render-cairo"

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <pango/pangocairo.h>
#include <string.h>

#include "ks-render-cairo.h"

void
ks_render_options_init (KsRenderOptions *options,
                        KsTrace         *trace,
                        int              width,
                        int              height)
{
  gint64 start, end;

  memset (options, 0, sizeof *options);
  options->width = width;
  options->height = height;
  options->header_width = KS_HEADER_WIDTH;
  options->ruler_height = KS_RULER_HEIGHT;
  /* The activity, as the window fits it. */
  ks_trace_get_activity_span (trace, &start, &end);
  options->t0 = start;
  options->t1 = MAX (start + 1, end);
}

void
ks_render_options_view (const KsRenderOptions *options,
                        KsTimeView            *view)
{
  view->width = MAX (1, options->width - options->header_width);
  view->t0 = options->t0;
  view->ns_per_px = MAX (1e-6, (options->t1 - options->t0) / view->width);
}

static void
set_color (cairo_t *cr,
           KsColor  c)
{
  cairo_set_source_rgba (cr, KS_COLOR_R (c), KS_COLOR_G (c), KS_COLOR_B (c), KS_COLOR_A (c));
}

static void
fill_rect (cairo_t *cr,
           double   x,
           double   y,
           double   w,
           double   h,
           KsColor  c)
{
  set_color (cr, c);
  cairo_rectangle (cr, x, y, w, h);
  cairo_fill (cr);
}

static void
draw_text (cairo_t     *cr,
           PangoLayout *layout,
           const char  *text,
           double       x,
           double       y,
           double       w,
           double       h,
           KsColor      color,
           KsColor      backdrop)
{
  int tw, th;

  pango_layout_set_text (layout, text, -1);
  pango_layout_set_width (layout, (int)(w * PANGO_SCALE));
  pango_layout_get_pixel_size (layout, &tw, &th);
  if (backdrop != 0)
    fill_rect (cr, x - 2, y + (h - th) / 2, tw + 4, th, backdrop);
  set_color (cr, color);
  cairo_move_to (cr, x, y + (h - th) / 2);
  pango_cairo_show_layout (cr, layout);
}

/* The primitives, shifted by (@dx, @dy). */
static void
replay (cairo_t              *cr,
        PangoLayout          *layout,
        PangoFontDescription *font,
        const KsPrims        *prims,
        double                dx,
        double                dy)
{
  gboolean bold = FALSE;

  for (guint i = 0; i < prims->rects->len; i++)
    {
      const KsPrimRect *pr = &g_array_index (prims->rects, KsPrimRect, i);

      fill_rect (cr, dx + pr->x, dy + pr->y, pr->w, pr->h, pr->color);
    }
  for (guint i = 0; i < prims->texts->len; i++)
    {
      const KsPrimText *pt = &g_array_index (prims->texts, KsPrimText, i);

      if (!!pt->bold != bold)
        {
          bold = !!pt->bold;
          pango_font_description_set_weight (font, bold ? PANGO_WEIGHT_BOLD : PANGO_WEIGHT_NORMAL);
          pango_layout_set_font_description (layout, font);
        }
      draw_text (cr, layout, pt->text, dx + pt->x, dy + pt->y, pt->w, pt->h, pt->color, pt->backdrop);
    }
  if (bold)
    {
      pango_font_description_set_weight (font, PANGO_WEIGHT_NORMAL);
      pango_layout_set_font_description (layout, font);
    }
}

void
ks_render_cairo (KsTimelineLayout      *layout,
                 cairo_t               *cr,
                 const KsRenderOptions *o)
{
  const KsTheme *theme;
  KsTimeView view;
  KsPrims prims;
  PangoLayout *pl;
  PangoFontDescription *font;
  guint pos, n_visible;
  double rows_top;

  g_return_if_fail (layout != NULL);
  g_return_if_fail (cr != NULL);

  theme = ks_theme_get (o->dark);
  ks_render_options_view (o, &view);
  ks_prims_init (&prims);

  pl = pango_cairo_create_layout (cr);
  font = pango_font_description_from_string ("Sans 8");
  pango_layout_set_font_description (pl, font);
  pango_layout_set_single_paragraph_mode (pl, TRUE);
  pango_layout_set_ellipsize (pl, PANGO_ELLIPSIZE_END);

  cairo_save (cr);
  fill_rect (cr, 0, 0, o->width, o->height, theme->background);
  fill_rect (cr, 0, 0, o->header_width, o->height, theme->header_background);

  rows_top = o->ruler_height;
  n_visible = ks_timeline_layout_get_n_visible (layout);

  for (pos = ks_timeline_layout_position_at_y (layout, o->scroll_y); pos < n_visible; pos++)
    {
      guint r = ks_timeline_layout_get_visible (layout, pos);
      const KsRow *row = ks_timeline_layout_get_row (layout, r);
      double y = rows_top + row->y - o->scroll_y;

      if (y >= o->height)
        break;

      if (row->kind != KS_ROW_GROUP)
        {
          ks_prims_reset (&prims);
          ks_timeline_layout_build_prims (layout, r, &view, theme, o->matches, &prims);
          cairo_save (cr);
          cairo_rectangle (cr, o->header_width, y, view.width, row->height);
          cairo_clip (cr);
          replay (cr, pl, font, &prims, o->header_width, y);
          cairo_restore (cr);
        }

      ks_prims_reset (&prims);
      ks_timeline_layout_build_header (layout, r, theme, o->width, o->header_width, &prims);
      replay (cr, pl, font, &prims, 0, y);
    }

  ks_prims_reset (&prims);
  ks_timeline_layout_build_ruler (&view, theme, o->width, o->height, o->header_width, o->ruler_height, &prims);
  cairo_save (cr);
  cairo_rectangle (cr, 0, 0, o->width, o->height);
  cairo_clip (cr);
  replay (cr, pl, font, &prims, 0, 0);
  cairo_restore (cr);

  fill_rect (cr, o->header_width - 1, 0, 1, o->height, theme->row_separator);
  cairo_restore (cr);

  pango_font_description_free (font);
  g_object_unref (pl);
  ks_prims_clear (&prims);
}

gboolean
ks_render_png (KsTimelineLayout      *layout,
               const KsRenderOptions *options,
               const char            *filename,
               GError               **error)
{
  cairo_surface_t *surface;
  cairo_t *cr;
  cairo_status_t status;

  surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, options->width, options->height);
  cr = cairo_create (surface);
  ks_render_cairo (layout, cr, options);
  cairo_destroy (cr);
  cairo_surface_flush (surface);

  status = cairo_surface_write_to_png (surface, filename);
  cairo_surface_destroy (surface);

  if (status != CAIRO_STATUS_SUCCESS)
    {
      g_autofree char *display = g_filename_display_name (filename);

      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                   _("Could not write “%s”: %s"), display, cairo_status_to_string (status));
      return FALSE;
    }

  return TRUE;
}
