/* ks-analysis-pages.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ks-analysis.h"
#include "ks-window.h"

G_BEGIN_DECLS

/* The analysis side of a window: adds the Summary, Gaps, Operators,
 * Kernels and Memory pages to its side panel, computes the analysis of
 * each trace it opens in the background (with the gap threshold and the
 * busy-includes-copies setting), moves the timeline when a page asks to
 * ("navigate"), outlines names it asks to ("highlight"), and provides
 * the actions analysis.next-gap / analysis.previous-gap on the keys ]
 * and [, in the order the Gaps page shows (largest first or by time). */

#define KS_TYPE_ANALYSIS_PAGES (ks_analysis_pages_get_type ())

G_DECLARE_FINAL_TYPE (KsAnalysisPages, ks_analysis_pages, KS, ANALYSIS_PAGES, GObject)

KsAnalysisPages *ks_analysis_pages_new          (KsWindow        *window);
/* The analysis shown, or NULL while there is none (notify::analysis). */
KsAnalysis      *ks_analysis_pages_get_analysis (KsAnalysisPages *self);
/* TRUE while an analysis is being computed. */
gboolean         ks_analysis_pages_get_busy     (KsAnalysisPages *self);
/* Zooms to the next (@direction > 0) or previous idle gap; FALSE at the end. */
gboolean         ks_analysis_pages_step_gap     (KsAnalysisPages *self,
                                                 int              direction);

G_END_DECLS
