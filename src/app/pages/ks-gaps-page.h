/* ks-gaps-page.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ks-page.h"

G_BEGIN_DECLS

/* The idle gaps of an analysis in a sortable, filterable table: start,
 * duration, GPU, class (host wait / kernel wait / other) and what the
 * CPU was doing. Largest first or in time order ("order-by-time").
 *
 * Signals: "navigate" (gint64 start_ns, gint64 end_ns) with the gap and a
 * margin when a row is activated or stepped to; "highlight" (guint
 * name_id) for the occurrences of the selected gap's cause. With a
 * session, the gap it goes to is also the session's selected range and
 * its GPU row is revealed; the page then stays the panel's shown page. */

#define KS_TYPE_GAPS_PAGE (ks_gaps_page_get_type ())

G_DECLARE_FINAL_TYPE (KsGapsPage, ks_gaps_page, KS, GAPS_PAGE, KsPage)

GtkWidget *ks_gaps_page_new               (void);
gboolean   ks_gaps_page_get_order_by_time (KsGapsPage *self);
void       ks_gaps_page_set_order_by_time (KsGapsPage *self,
                                           gboolean    by_time);
/* Selects the next (@direction > 0) or previous gap in the order shown
 * and emits "navigate" for it. FALSE when there is none that way. */
gboolean   ks_gaps_page_step              (KsGapsPage *self,
                                           int         direction);
/* The gap selected in the table, or NULL. */
const KsGap *ks_gaps_page_get_selected    (KsGapsPage *self);

G_END_DECLS
