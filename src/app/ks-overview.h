/* ks-overview.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "ks-analysis.h"
#include "ks-session.h"

G_BEGIN_DECLS

/* The strip above the timeline: GPU busy time across the whole trace
 * (CPU activity when there is no GPU), as the analysis measures it
 * (ks_analysis_get_trace_busy), with a bracket around the visible span.
 * Clicking or dragging moves the view there. It follows its "session":
 * the trace, the visible span and the analysis. */

#define KS_TYPE_OVERVIEW (ks_overview_get_type ())

G_DECLARE_FINAL_TYPE (KsOverview, ks_overview, KS, OVERVIEW, GtkWidget)

GtkWidget *ks_overview_new         (void);
KsSession *ks_overview_get_session (KsOverview *self);
void       ks_overview_set_session (KsOverview *self,
                                    KsSession  *session);
/* The busy fraction (0..1) of each pixel column of the time area as last
 * drawn, or NULL before the first frame. */
const float *ks_overview_get_columns (KsOverview *self,
                                      guint      *n_columns);

G_END_DECLS
