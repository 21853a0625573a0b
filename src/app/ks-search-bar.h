/* ks-search-bar.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "ks-session.h"

G_BEGIN_DECLS

/* The bar that finds slices by name: its text (a regular expression
 * with its toggle) is the session's search, run in a worker; the count
 * beside it follows the session's matches and current match. Enter and
 * the arrows activate win.find-next and win.find-previous; Escape
 * closes the bar and emits "stop-search". Closing it ends the search,
 * opening it searches again. It follows "session" (may be NULL). */

#define KS_TYPE_SEARCH_BAR (ks_search_bar_get_type ())

G_DECLARE_FINAL_TYPE (KsSearchBar, ks_search_bar, KS, SEARCH_BAR, GtkWidget)

GtkWidget *ks_search_bar_new         (void);
KsSession *ks_search_bar_get_session (KsSearchBar *self);
void       ks_search_bar_set_session (KsSearchBar *self,
                                      KsSession   *session);
/* "search-mode-enabled": the bar shown. */
gboolean   ks_search_bar_get_search_mode (KsSearchBar *self);
void       ks_search_bar_set_search_mode (KsSearchBar *self,
                                          gboolean     search_mode);
/* Opens the bar with the focus in its entry. */
void       ks_search_bar_start       (KsSearchBar *self);

G_END_DECLS
