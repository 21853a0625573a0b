/* ks-selection-page.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "ks-analysis.h"
#include "ks-session.h"
#include "ks-timeline-layout.h"

G_BEGIN_DECLS

/* The side panel's "Selection" page: details of the selected slice
 * (kernel launch geometry, copy sizes, arguments, launch flows) and
 * statistics of the selected time range. It follows its "session": the
 * selection, the range and the analysis (a selected step then shows its
 * breakdown). */

#define KS_TYPE_SELECTION_PAGE (ks_selection_page_get_type ())

G_DECLARE_FINAL_TYPE (KsSelectionPage, ks_selection_page, KS, SELECTION_PAGE, GtkWidget)

GtkWidget  *ks_selection_page_new          (void);
KsSession  *ks_selection_page_get_session  (KsSelectionPage  *self);
void        ks_selection_page_set_session  (KsSelectionPage  *self,
                                            KsSession        *session);
/* TRUE while range statistics are being computed. */
gboolean    ks_selection_page_get_busy     (KsSelectionPage  *self);
/* The value shown beside @title in the group titled @group, or NULL. */
const char *ks_selection_page_lookup_value (KsSelectionPage  *self,
                                            const char       *group,
                                            const char       *title);

G_END_DECLS
