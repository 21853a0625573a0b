/* ks-gpu-chart.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-gpu-chart"

#include "config.h"

#include <math.h>

#include "ks-gpu-chart.h"

struct _KsGpuChart
{
  GtkWidget  parent_instance;

  GArray    *values;     /* double, oldest first */
  guint      capacity;
  double     max;        /* 0: the largest value seen */
};

G_DEFINE_FINAL_TYPE (KsGpuChart, ks_gpu_chart, GTK_TYPE_WIDGET)

static double
scale_max (KsGpuChart *self)
{
  double max = self->max;

  if (max <= 0)
    for (guint i = 0; i < self->values->len; i++)
      if (!isnan (g_array_index (self->values, double, i)))
        max = MAX (max, g_array_index (self->values, double, i));
  return max > 0 ? max : 1;
}

static void
ks_gpu_chart_snapshot (GtkWidget   *widget,
                       GtkSnapshot *snapshot)
{
  KsGpuChart *self = KS_GPU_CHART (widget);
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);
  double max = scale_max (self);
  double step = self->capacity > 1 ? (double) width / (self->capacity - 1) : width;
  GdkRGBA color;
  cairo_t *cr;
  gboolean open = FALSE;
  double first_x = 0;

  if (width <= 0 || height <= 0)
    return;
  gtk_style_context_get_color (gtk_widget_get_style_context (widget), &color);
  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, width, height));

  /* the frame, faint */
  cairo_set_source_rgba (cr, color.red, color.green, color.blue, 0.15);
  cairo_rectangle (cr, 0.5, 0.5, width - 1, height - 1);
  cairo_set_line_width (cr, 1);
  cairo_stroke (cr);

  /* newest at the right edge; each run without a gap filled below */
  for (guint i = 0; i <= self->values->len; i++)
    {
      double v = i < self->values->len ? g_array_index (self->values, double, i) : NAN;
      double x = width - (self->values->len - 1 - (double) i) * step;
      double y = height - CLAMP (v / max, 0, 1) * (height - 2) - 1;

      if (!isnan (v))
        {
          if (!open)
            {
              cairo_move_to (cr, x, height);
              first_x = x;
              open = TRUE;
            }
          cairo_line_to (cr, x, y);
          continue;
        }
      if (open)
        {
          double last_x = width - (self->values->len - (double) i) * step;

          cairo_line_to (cr, last_x, height);
          cairo_line_to (cr, first_x, height);
          cairo_close_path (cr);
          cairo_set_source_rgba (cr, 0.21, 0.52, 0.89, 0.35);
          cairo_fill_preserve (cr);
          cairo_set_source_rgba (cr, 0.21, 0.52, 0.89, 1);
          cairo_set_line_width (cr, 1.5);
          cairo_stroke (cr);
          open = FALSE;
        }
    }
  cairo_destroy (cr);
}

static void
ks_gpu_chart_measure (GtkWidget      *widget,
                      GtkOrientation  orientation,
                      int             for_size,
                      int            *minimum,
                      int            *natural,
                      int            *minimum_baseline,
                      int            *natural_baseline)
{
  *minimum = orientation == GTK_ORIENTATION_HORIZONTAL ? 120 : 48;
  *natural = orientation == GTK_ORIENTATION_HORIZONTAL ? 240 : 64;
}

static void
ks_gpu_chart_finalize (GObject *object)
{
  KsGpuChart *self = KS_GPU_CHART (object);

  g_array_unref (self->values);
  G_OBJECT_CLASS (ks_gpu_chart_parent_class)->finalize (object);
}

static void
ks_gpu_chart_class_init (KsGpuChartClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->finalize = ks_gpu_chart_finalize;
  widget_class->snapshot = ks_gpu_chart_snapshot;
  widget_class->measure = ks_gpu_chart_measure;
  gtk_widget_class_set_css_name (widget_class, "gpuchart");
}

static void
ks_gpu_chart_init (KsGpuChart *self)
{
  self->values = g_array_new (FALSE, FALSE, sizeof (double));
  self->capacity = 60;
}

KsGpuChart *
ks_gpu_chart_new (guint  capacity,
                  double max)
{
  KsGpuChart *self = g_object_new (KS_TYPE_GPU_CHART, NULL);

  self->capacity = MAX (capacity, 2);
  self->max = max;
  return self;
}

void
ks_gpu_chart_push (KsGpuChart *self,
                   double      value)
{
  g_return_if_fail (KS_IS_GPU_CHART (self));

  g_array_append_val (self->values, value);
  if (self->values->len > self->capacity)
    g_array_remove_range (self->values, 0, self->values->len - self->capacity);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
ks_gpu_chart_set_max (KsGpuChart *self,
                      double      max)
{
  g_return_if_fail (KS_IS_GPU_CHART (self));

  self->max = max;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

guint
ks_gpu_chart_get_n_values (KsGpuChart *self)
{
  g_return_val_if_fail (KS_IS_GPU_CHART (self), 0);
  return self->values->len;
}

double
ks_gpu_chart_get_value (KsGpuChart *self,
                        guint       i)
{
  g_return_val_if_fail (KS_IS_GPU_CHART (self), NAN);
  g_return_val_if_fail (i < self->values->len, NAN);
  return g_array_index (self->values, double, i);
}
