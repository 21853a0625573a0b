/* ks-summary-page.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ks-page.h"

G_BEGIN_DECLS

/* Overview of an analysis: GPU busy share with its curve over time, the
 * step-time breakdown as bars, idle gaps, launch latency, and the advice
 * with links to the places it is about.
 *
 * Signals: "navigate" (gint64 start_ns, gint64 end_ns) when a place is
 * activated; "highlight" (guint name_id) to show the occurrences of a
 * name. */

#define KS_TYPE_SUMMARY_PAGE (ks_summary_page_get_type ())

G_DECLARE_FINAL_TYPE (KsSummaryPage, ks_summary_page, KS, SUMMARY_PAGE, KsPage)

GtkWidget *ks_summary_page_new          (void);
/* Shows that an analysis is being computed while there is none
 * ("busy", bound to the session's in the window). */
void       ks_summary_page_set_busy     (KsSummaryPage *self,
                                         gboolean       busy);
/* The "Count Copies as Busy" switch ("include-copies"); follows the
 * options of the analysis shown. */
gboolean   ks_summary_page_get_include_copies (KsSummaryPage *self);
void       ks_summary_page_set_include_copies (KsSummaryPage *self,
                                               gboolean       include_copies);
/* The warm-up's "Include in the Figures" switch ("include-warmup"); the
 * same. */
gboolean   ks_summary_page_get_include_warmup (KsSummaryPage *self);
void       ks_summary_page_set_include_warmup (KsSummaryPage *self,
                                               gboolean       include_warmup);

G_END_DECLS
