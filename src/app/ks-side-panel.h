/* ks-side-panel.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "ks-session.h"

G_BEGIN_DECLS

/* The panel beside the timeline: the analysis pages and the Selection
 * page in a stack, their tabs (scrolled, the shown page's tab kept in
 * view) and a button listing every page (win.show-page). Every page
 * binds the panel's "session" (the Summary page its "busy" too, the
 * session's). A page is built when first shown or asked for, so a
 * window opens with the Selection page alone. The panel follows the
 * session as well: a new trace opens on the first page, selecting a slice, an instant, a memory
 * block or a range shows the Selection page. "page-built" (detailed
 * by the page's name, with the page) says a page was built.
 *
 * As the end child of a GtkPaned it sizes itself: its first width a
 * share of the paned (its tables' columns fit at 1280 pixels), then
 * the user's, kept within half the paned as the window narrows. */

#define KS_TYPE_SIDE_PANEL (ks_side_panel_get_type ())

G_DECLARE_FINAL_TYPE (KsSidePanel, ks_side_panel, KS, SIDE_PANEL, GtkBox)

GtkWidget *ks_side_panel_new         (void);
KsSession *ks_side_panel_get_session (KsSidePanel *self);
void       ks_side_panel_set_session (KsSidePanel *self,
                                      KsSession   *session);
/* The page named @name ("summary", "gaps", "selection", …), built now
 * if it was not, or NULL. */
GtkWidget *ks_side_panel_get_page    (KsSidePanel *self,
                                      const char  *name);
/* The same, or NULL while it is not built. */
GtkWidget *ks_side_panel_peek_page   (KsSidePanel *self,
                                      const char  *name);
/* Shows the page named @name; FALSE when there is none. */
gboolean   ks_side_panel_show_page   (KsSidePanel *self,
                                      const char  *name);

G_END_DECLS
