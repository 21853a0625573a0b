/* ks-ranks-page.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ks-page.h"
#include "ks-rank-summaries.h"

G_BEGIN_DECLS

/* The ranks of a distributed job: a row per rank (step time, busy %,
 * communication, exposed communication, overlap, wait, waited for), a
 * bar per rank of its step split into compute, exposed communication
 * and waiting, the straggler and how the clocks were aligned.
 *
 * Signals: "navigate" (gint64 start_ns, gint64 end_ns) to the rank's
 * steps when a row is activated; ks_ranks_page_get_selected_track()
 * then names a row of it to bring into view.
 *
 * A job too large to load whole shows its summaries instead: those of
 * its session ("summaries", "loaded-row"), or as set by
 * ks_ranks_page_set_summaries() without a session. Activating a rank
 * other than the loaded one sets the session's "loading-row", and the
 * page says which rank is loaded and why the others are not. */

#define KS_TYPE_RANKS_PAGE (ks_ranks_page_get_type ())

G_DECLARE_FINAL_TYPE (KsRanksPage, ks_ranks_page, KS, RANKS_PAGE, KsPage)

GtkWidget *ks_ranks_page_new                (void);
/* The first row (track) of the rank last activated, or KS_NO_INDEX. */
guint32    ks_ranks_page_get_selected_track (KsRanksPage *self);
/* @summaries (or NULL: the trace's analysis again), with @loaded_row
 * the row whose trace the page is given by its session, or
 * KS_NO_INDEX. */
void       ks_ranks_page_set_summaries      (KsRanksPage     *self,
                                             KsRankSummaries *summaries,
                                             guint            loaded_row);
/* The loaded row of the summaries, KS_NO_INDEX without. */
guint      ks_ranks_page_get_loaded_row     (KsRanksPage     *self);
/* The rows the page shows: the summaries', else the analysis'. */
const KsRankStats *ks_ranks_page_get_rows   (KsRanksPage     *self,
                                             guint           *n_rows);
/* What the line above the table says. */
const char *ks_ranks_page_get_status        (KsRanksPage     *self);

G_END_DECLS
