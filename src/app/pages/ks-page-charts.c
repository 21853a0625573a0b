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

#define STEP_BAR_H   18.0
#define STEP_LABEL_W 36.0

gint64
ks_chart_steps_scale (const KsStep *steps,
                      guint         n_steps)
{
  gint64 longest = 1, second = 0;

  for (guint i = 0; i < n_steps; i++)
    {
      gint64 d = steps[i].end - steps[i].start;

      if (d > longest)
        {
          second = longest;
          longest = d;
        }
      else if (d > second)
        second = d;
    }
  if (n_steps > 2 && second > 0 && longest > 2 * second)
    return (gint64)(second * 1.2);
  return longest;
}

static double
steps_bar_h (int   height,
             guint n_steps)
{
  return MIN (STEP_BAR_H, (double)height / MAX (1, n_steps));
}

int
ks_chart_steps_at (int    height,
                   guint  n_steps,
                   double y)
{
  int i;

  if (y < 0 || n_steps == 0)
    return -1;
  i = (int)(y / steps_bar_h (height, n_steps));
  return i < (int)n_steps ? i : -1;
}

char *
ks_chart_steps_tooltip (KsTrace    *trace,
                        KsAnalysis *analysis,
                        guint       index)
{
  const KsStep *s = &ks_analysis_get_steps (analysis, NULL)[index];
  g_autofree char *dur = ks_time_format_duration (s->end - s->start);
  g_autofree char *name = ks_analysis_dup_step_name (analysis, trace, index);
  GString *out = g_string_new (NULL);

  g_string_append_printf (out, "%s: %s", name, dur);
  if (s->warmup)
    g_string_append_printf (out, "\n%s", _("Warm-up: left out of the figures unless they include it"));
  for (guint p = 0; p < KS_N_STEP_PARTS; p++)
    if (s->parts[p] > 0)
      {
        g_autofree char *t = ks_time_format_duration (s->parts[p]);

        g_string_append_printf (out, "\n%s: %s", ks_step_part_get_title (p), t);
      }
  g_string_append_printf (out, "\n%s", _("Click to go to this step"));
  return g_string_free (out, FALSE);
}

void
ks_chart_draw_steps (cairo_t      *cr,
                     int           width,
                     int           height,
                     const GdkRGBA *fg,
                     const KsStep *steps,
                     guint         n_steps)
{
  gint64 scale;
  double bar_h, plot_w = MAX (1.0, width - STEP_LABEL_W);
  g_autofree char *scale_text = NULL;

  if (n_steps == 0)
    return;
  scale = ks_chart_steps_scale (steps, n_steps);
  bar_h = steps_bar_h (height, n_steps);

  for (guint i = 0; i < n_steps; i++)
    {
      double x = STEP_LABEL_W;
      double y = i * bar_h;
      gint64 dur = steps[i].end - steps[i].start;
      g_autofree char *label = g_strdup_printf ("%u", i + 1);

      if (bar_h >= 12)
        draw_text (cr, fg, STEP_LABEL_W - 6, y + (bar_h - LABEL_H) / 2, label, TRUE);

      cairo_save (cr);
      cairo_rectangle (cr, STEP_LABEL_W, y, plot_w, bar_h);
      cairo_clip (cr);
      for (guint p = 0; p < KS_N_STEP_PARTS; p++)
        {
          double w = (double)steps[i].parts[p] / scale * plot_w;
          GdkRGBA c;

          ks_chart_step_part_color (p, &c);
          gdk_cairo_set_source_rgba (cr, &c);
          cairo_rectangle (cr, x, y + 1, w, bar_h - 2);
          cairo_fill (cr);
          x += w;
        }
      cairo_restore (cr);

      /* Clipped: two slanted cuts near its end say it goes on. */
      if (dur > scale)
        {
          cairo_set_source_rgba (cr, fg->red, fg->green, fg->blue, 0.9);
          cairo_set_line_width (cr, 2);
          for (int k = 0; k < 2; k++)
            {
              double cx = width - 14 + k * 5;

              cairo_move_to (cr, cx - 2, y + bar_h - 2);
              cairo_line_to (cr, cx + 2, y + 2);
            }
          cairo_stroke (cr);
        }
    }

  /* The time axis: what the full width stands for. */
  scale_text = ks_time_format_duration (scale);
  draw_text (cr, fg, width, 0, scale_text, TRUE);
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
