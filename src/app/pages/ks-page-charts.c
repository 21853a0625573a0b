/* ks-page-charts.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-page-charts"

#include "config.h"

#include <glib/gi18n.h>
#include <pango/pangocairo.h>

#include "ks-format.h"
#include "ks-page-charts.h"

#define LABEL_H 14.0

const char *
ks_chart_step_part_hex (KsStepPart part)
{
  static const char * const colors[KS_N_STEP_PARTS] = {
    "#3584e4", /* kernel */
    "#2ec27e", /* memcpy */
    "#26a269", /* memset */
    "#e5a50a", /* runtime */
    "#e01b24", /* DataLoader */
    "#9141ac", /* CPU exec */
    "#9a9996", /* other */
  };

  return colors[MIN (part, KS_N_STEP_PARTS - 1)];
}

void
ks_chart_step_part_color (KsStepPart  part,
                          GdkRGBA    *color)
{
  gdk_rgba_parse (color, ks_chart_step_part_hex (part));
}

static void
draw_text (cairo_t       *cr,
           const GdkRGBA *fg,
           double         x,
           double         y,
           const char    *text,
           gboolean       right)
{
  PangoLayout *layout = pango_cairo_create_layout (cr);
  PangoFontDescription *font = pango_font_description_from_string ("Sans 8");
  int w, h;

  pango_layout_set_font_description (layout, font);
  pango_layout_set_text (layout, text, -1);
  pango_layout_get_pixel_size (layout, &w, &h);
  cairo_set_source_rgba (cr, fg->red, fg->green, fg->blue, 0.7);
  cairo_move_to (cr, right ? x - w : x, y);
  pango_cairo_show_layout (cr, layout);
  pango_font_description_free (font);
  g_object_unref (layout);
}

static void
draw_frame (cairo_t       *cr,
            const GdkRGBA *fg,
            double         x,
            double         y,
            double         w,
            double         h)
{
  cairo_set_source_rgba (cr, fg->red, fg->green, fg->blue, 0.15);
  cairo_set_line_width (cr, 1.0);
  cairo_rectangle (cr, x + 0.5, y + 0.5, w - 1, h - 1);
  cairo_stroke (cr);
}

void
ks_chart_draw_utilization (cairo_t            *cr,
                           int                 width,
                           int                 height,
                           const GdkRGBA      *fg,
                           const KsGpuSummary *gpu)
{
  double plot_h = height - LABEL_H;
  g_autofree char *t0 = NULL;
  g_autofree char *t1 = NULL;
  GdkRGBA blue;

  draw_frame (cr, fg, 0, 0, width, plot_h);
  if (gpu == NULL || gpu->n_util == 0)
    return;

  gdk_rgba_parse (&blue, "#3584e4");
  cairo_move_to (cr, 0, plot_h);
  for (guint i = 0; i < gpu->n_util; i++)
    {
      double x0 = (double)i * width / gpu->n_util;
      double x1 = (double)(i + 1) * width / gpu->n_util;
      double y = plot_h - gpu->util[i] * (plot_h - 2);

      cairo_line_to (cr, x0, y);
      cairo_line_to (cr, x1, y);
    }
  cairo_line_to (cr, width, plot_h);
  cairo_close_path (cr);
  cairo_set_source_rgba (cr, blue.red, blue.green, blue.blue, 0.6);
  cairo_fill (cr);

  t0 = ks_time_format_duration (gpu->util_start);
  t1 = ks_time_format_duration (gpu->util_start + (gint64)gpu->n_util * gpu->util_bucket_ns);
  draw_text (cr, fg, 0, plot_h, t0, FALSE);
  draw_text (cr, fg, width, plot_h, t1, TRUE);
  draw_text (cr, fg, 3, 1, "100 %", FALSE);
}

void
ks_chart_draw_steps (cairo_t      *cr,
                     int           width,
                     int           height,
                     const GdkRGBA *fg,
                     const KsStep *steps,
                     guint         n_steps)
{
  gint64 longest = 1;
  double bar_h;

  if (n_steps == 0)
    return;
  for (guint i = 0; i < n_steps; i++)
    longest = MAX (longest, steps[i].end - steps[i].start);

  bar_h = MIN (18.0, (double)height / n_steps);
  for (guint i = 0; i < n_steps; i++)
    {
      double x = 0;
      double y = i * bar_h;

      for (guint p = 0; p < KS_N_STEP_PARTS; p++)
        {
          double w = (double)steps[i].parts[p] / longest * width;
          GdkRGBA c;

          ks_chart_step_part_color (p, &c);
          gdk_cairo_set_source_rgba (cr, &c);
          cairo_rectangle (cr, x, y + 1, w, bar_h - 2);
          cairo_fill (cr);
          x += w;
        }
    }
}

static char *
format_bytes_axis (gint64 bytes)
{
  return ks_format_bytes (MAX (bytes, 0));
}

gint64
ks_chart_memory_top (const KsMemoryCurve *curve,
                     gboolean             with_reserved)
{
  gint64 top = 1;

  for (guint i = 0; curve != NULL && i < curve->n_points; i++)
    top = MAX (top, with_reserved ? MAX (curve->points[i].allocated, curve->points[i].reserved)
                                  : curve->points[i].allocated);
  return top;
}

void
ks_chart_draw_memory (cairo_t             *cr,
                      int                  width,
                      int                  height,
                      const GdkRGBA       *fg,
                      const KsMemoryCurve *curve,
                      gboolean             with_reserved)
{
  double plot_h = height - LABEL_H;
  gint64 t0, t1, top;
  g_autofree char *top_text = NULL;
  g_autofree char *t0_text = NULL;
  g_autofree char *t1_text = NULL;
  GdkRGBA alloc_c, resv_c;

  draw_frame (cr, fg, 0, 0, width, plot_h);
  if (curve == NULL || curve->n_points == 0)
    return;

  t0 = curve->points[0].ts;
  t1 = MAX (curve->points[curve->n_points - 1].ts, t0 + 1);
  top = ks_chart_memory_top (curve, with_reserved);

#define X(t) ((double)((t) - t0) / (t1 - t0) * (width - 1))
#define Y(v) (plot_h - (double)(v) / top * (plot_h - 4))

  gdk_rgba_parse (&alloc_c, "#3584e4");
  gdk_rgba_parse (&resv_c, "#e66100");

  /* Allocated: a step area */
  cairo_move_to (cr, X (t0), plot_h);
  for (guint i = 0; i < curve->n_points; i++)
    {
      if (i > 0)
        cairo_line_to (cr, X (curve->points[i].ts), Y (curve->points[i - 1].allocated));
      cairo_line_to (cr, X (curve->points[i].ts), Y (curve->points[i].allocated));
    }
  cairo_line_to (cr, X (t1), Y (curve->points[curve->n_points - 1].allocated));
  cairo_line_to (cr, X (t1), plot_h);
  cairo_close_path (cr);
  cairo_set_source_rgba (cr, alloc_c.red, alloc_c.green, alloc_c.blue, 0.5);
  cairo_fill (cr);

  /* Reserved: a step line */
  if (with_reserved && curve->peak_reserved > 0)
    {
      gboolean started = FALSE;

      for (guint i = 0; i < curve->n_points; i++)
        {
          if (curve->points[i].reserved < 0)
            continue;
          if (!started)
            cairo_move_to (cr, X (curve->points[i].ts), Y (curve->points[i].reserved));
          else
            cairo_line_to (cr, X (curve->points[i].ts), Y (curve->points[i].reserved));
          started = TRUE;
          if (i + 1 < curve->n_points)
            cairo_line_to (cr, X (curve->points[i + 1].ts), Y (curve->points[i].reserved));
        }
      gdk_cairo_set_source_rgba (cr, &resv_c);
      cairo_set_line_width (cr, 1.5);
      cairo_stroke (cr);
    }

  /* The peak */
  cairo_set_source_rgba (cr, fg->red, fg->green, fg->blue, 0.6);
  cairo_arc (cr, X (curve->peak_allocated_ts), Y (curve->peak_allocated), 3, 0, 2 * G_PI);
  cairo_fill (cr);

#undef X
#undef Y

  top_text = format_bytes_axis (top);
  t0_text = ks_time_format_duration (t0);
  t1_text = ks_time_format_duration (t1);
  draw_text (cr, fg, 3, 1, top_text, FALSE);
  draw_text (cr, fg, 0, plot_h, t0_text, FALSE);
  draw_text (cr, fg, width, plot_h, t1_text, TRUE);
}

void
ks_chart_draw_latency (cairo_t               *cr,
                       int                    width,
                       int                    height,
                       const GdkRGBA         *fg,
                       const KsLaunchLatency *latency)
{
  const gint64 *edges = ks_analysis_latency_bucket_edges (NULL);
  double plot_h = height - LABEL_H;
  guint first = KS_LATENCY_N_BUCKETS, last = 0;
  guint64 top = 1;
  double bw;
  GdkRGBA c;

  draw_frame (cr, fg, 0, 0, width, plot_h);
  if (latency == NULL || latency->count == 0)
    return;

  for (guint b = 0; b < KS_LATENCY_N_BUCKETS; b++)
    if (latency->histogram[b] > 0)
      {
        first = MIN (first, b);
        last = MAX (last, b);
        top = MAX (top, latency->histogram[b]);
      }

  gdk_rgba_parse (&c, "#3584e4");
  bw = (double)width / (last - first + 1);
  for (guint b = first; b <= last; b++)
    {
      double h = (double)latency->histogram[b] / top * (plot_h - 2);
      g_autofree char *label = ks_time_format_duration (edges[b]);

      gdk_cairo_set_source_rgba (cr, &c);
      cairo_rectangle (cr, (b - first) * bw + 1, plot_h - h, bw - 2, h);
      cairo_fill (cr);
      draw_text (cr, fg, (b - first) * bw + 1, plot_h, label, FALSE);
    }
}
