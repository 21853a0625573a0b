/* ks-page-charts.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "ks-analysis.h"

G_BEGIN_DECLS

/* Small cairo charts of the analysis pages, drawn by GtkDrawingAreas. */

/* Colour of a step part, shared by the bars and their legend. */
void  ks_chart_step_part_color   (KsStepPart              part,
                                  GdkRGBA                *color);
const char *ks_chart_step_part_hex (KsStepPart            part);

/* Busy share over time: an area chart of @gpu->util (0..1). */
void  ks_chart_draw_utilization  (cairo_t                *cr,
                                  int                     width,
                                  int                     height,
                                  const GdkRGBA          *fg,
                                  const KsGpuSummary     *gpu);
/* The time the full width of the step bars stands for: the longest
 * step, unless it is more than twice the next longest (a warm-up first
 * step), then 1.2 times that one, the longer bar clipped and marked. */
gint64 ks_chart_steps_scale      (const KsStep           *steps,
                                  guint                   n_steps);
/* The step whose bar lies at @y in a chart @height high, or -1. */
int   ks_chart_steps_at          (int                     height,
                                  guint                   n_steps,
                                  double                  y);
/* "ProfilerStep#3: 12.1 ms" (an inferred step "step 3", a warm-up one
 * marked) and the time of each part, one a line. */
char *ks_chart_steps_tooltip     (KsTrace                *trace,
                                  KsAnalysis             *analysis,
                                  guint                   index);
/* One horizontal bar per step, split into the parts of the breakdown,
 * its number on the left and the scale's time at the top right. */
void  ks_chart_draw_steps        (cairo_t                *cr,
                                  int                     width,
                                  int                     height,
                                  const GdkRGBA          *fg,
                                  const KsStep           *steps,
                                  guint                   n_steps);
/* Allocated (filled) and, with @with_reserved, reserved (line) bytes
 * over time; the axis goes up to the highest curve drawn. */
void  ks_chart_draw_memory       (cairo_t                *cr,
                                  int                     width,
                                  int                     height,
                                  const GdkRGBA          *fg,
                                  const KsMemoryCurve    *curve,
                                  gboolean                with_reserved);
/* The top of that axis, in bytes. */
gint64 ks_chart_memory_top       (const KsMemoryCurve    *curve,
                                  gboolean                with_reserved);
/* The launch latency histogram. */
void  ks_chart_draw_latency      (cairo_t                *cr,
                                  int                     width,
                                  int                     height,
                                  const GdkRGBA          *fg,
                                  const KsLaunchLatency  *latency);

G_END_DECLS
