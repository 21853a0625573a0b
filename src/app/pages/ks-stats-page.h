/* ks-stats-page.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ks-page.h"

G_BEGIN_DECLS

/* A page of one of the TensorBoard-plugin and HTA reports, named as
 * kinescope-cli stats --report names them (its "report" property, set at
 * construction):
 *
 *   "tensor-cores"      operators, eligible or not, their share of GPU time
 *                       in tensor-core kernels; activating one highlights it
 *                       and shows its longest call
 *   "queue"             the queue length summary per stream; activating one
 *                       shows the stretch where its queue was longest
 *   "memcpy-bandwidth"  every copy with its bandwidth, the copy kinds above;
 *                       activating one shows the copy
 *   "kernel-sequences"  the most frequent runs of kernels and the operators
 *                       that launched them; activating one shows its runs,
 *                       from the first to the last
 *   "gpu-annotations"   the GPU user annotations; activating one highlights
 *                       it and shows its ranges, from the first to the last
 *
 * The columns are the report's (ks-report.c), as in the CLI's tables.
 * Signals: "highlight" and "navigate", as the other pages; while
 * "navigate" is emitted, ks_stats_page_get_track() names the row of the
 * timeline to bring into view (the stream of a queue, a copy, the first
 * run of a sequence), or KS_NO_INDEX. */

#define KS_TYPE_STATS_PAGE (ks_stats_page_get_type ())

G_DECLARE_FINAL_TYPE (KsStatsPage, ks_stats_page, KS, STATS_PAGE, KsPage)

GtkWidget *ks_stats_page_new       (const char  *report);
guint32    ks_stats_page_get_track (KsStatsPage *self);

G_END_DECLS
