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
/* One horizontal bar per step, split into the parts of the breakdown. */
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
