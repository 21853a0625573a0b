/* ks-page-slot.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "ks-session.h"

G_BEGIN_DECLS

/* A page made when it is first wanted: the child of a stack page in the
 * side panel's template (or the window's, for the Compare view and the
 * job's Ranks page), it names the page's type ("page-type", with
 * "report" for a KsStatsPage) and builds the page on the first
 * ks_page_slot_get_page(), which the panel or window calls when the
 * stack first shows it. The page then binds the slot's "session" (and
 * "busy" and "baseline", if it has them), which the slot takes from the
 * panel or window. Building every page with the window made it a large
 * part of the start-up. */

#define KS_TYPE_PAGE_SLOT (ks_page_slot_get_type ())

G_DECLARE_FINAL_TYPE (KsPageSlot, ks_page_slot, KS, PAGE_SLOT, GtkWidget)

/* The page, built now if it was not. */
GtkWidget *ks_page_slot_get_page  (KsPageSlot *self);
/* The page, or NULL while it is not built. */
GtkWidget *ks_page_slot_peek_page (KsPageSlot *self);

G_END_DECLS
