/* ks-summary-page.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "ks-analysis.h"

G_BEGIN_DECLS

/* Overview of an analysis: GPU busy share with its curve over time, the
 * step-time breakdown as bars, idle gaps, launch latency, and the advice
 * with links to the places it is about.
 *
 * Signals: "navigate" (gint64 start_ns, gint64 end_ns) when a place is
 * activated; "highlight" (guint name_id) to show the occurrences of a
 * name. */

#define KS_TYPE_SUMMARY_PAGE (ks_summary_page_get_type ())

G_DECLARE_FINAL_TYPE (KsSummaryPage, ks_summary_page, KS, SUMMARY_PAGE, GtkWidget)

GtkWidget *ks_summary_page_new          (void);
/* @trace and @analysis may be NULL (nothing to show). */
void       ks_summary_page_set_analysis (KsSummaryPage *self,
                                         KsTrace       *trace,
                                         KsAnalysis    *analysis);

G_END_DECLS
