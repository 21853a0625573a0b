/* ks-ranks-page.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ks-page.h"

G_BEGIN_DECLS

/* The ranks of a distributed job: a row per rank (step time, busy %,
 * communication, exposed communication, overlap, wait, waited for), a
 * bar per rank of its step split into compute, exposed communication
 * and waiting, the straggler and how the clocks were aligned.
 *
 * Signals: "navigate" (gint64 start_ns, gint64 end_ns) to the rank's
 * steps when a row is activated; ks_ranks_page_get_selected_track()
 * then names a row of it to bring into view. */

#define KS_TYPE_RANKS_PAGE (ks_ranks_page_get_type ())

G_DECLARE_FINAL_TYPE (KsRanksPage, ks_ranks_page, KS, RANKS_PAGE, KsPage)

GtkWidget *ks_ranks_page_new                (void);
/* The first row (track) of the rank last activated, or KS_NO_INDEX. */
guint32    ks_ranks_page_get_selected_track (KsRanksPage *self);

G_END_DECLS
