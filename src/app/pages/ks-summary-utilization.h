/* ks-summary-utilization.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "ks-analysis.h"

G_BEGIN_DECLS

/* The Summary page's lead for a trace without GPU work but with sampled
 * GPU utilization (an nvidia-smi log): per GPU its mean utilization, the
 * time under 50 % and under 30 % and the longest stretch under 50 %, as
 * `kinescope-cli stats` reports them. NULL when there is no such row. */
GtkWidget *ks_summary_utilization_new (KsTrace    *trace,
                                       KsAnalysis *analysis);

G_END_DECLS
