/* ks-gpu-chart.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define KS_TYPE_GPU_CHART (ks_gpu_chart_get_type ())

G_DECLARE_FINAL_TYPE (KsGpuChart, ks_gpu_chart, KS, GPU_CHART, GtkWidget)

/* A small live chart of one GPU metric: the last @capacity values as a
 * filled line from 0 to @max (or to the largest value seen, when @max is
 * 0). NAN is a sample the GPU could not give: a gap in the line. */
KsGpuChart *ks_gpu_chart_new          (guint       capacity,
                                       double      max);
void        ks_gpu_chart_push         (KsGpuChart *self,
                                       double      value);
void        ks_gpu_chart_set_max      (KsGpuChart *self,
                                       double      max);
guint       ks_gpu_chart_get_n_values (KsGpuChart *self);
/* The @i-th value kept, oldest first. */
double      ks_gpu_chart_get_value    (KsGpuChart *self,
                                       guint       i);

G_END_DECLS
