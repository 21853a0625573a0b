/* ks-page.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "ks-analysis.h"
#include "ks-session.h"

G_BEGIN_DECLS

/* An analysis page of the side panel. It follows a session: its
 * "analysis" property is bound to the session's, and every change of it
 * refills the page through the refill vfunc (with NULL: empty, at
 * once). The refill of a new analysis waits for the page's turn in an idle, one page per main-loop
 * iteration, the shown pages first; a page mapped before its turn
 * refills at once; "filled" is FALSE meanwhile. A page without a session
 * shows what ks_page_set_analysis() gives it, at once.
 *
 * Signals: "navigate" (gint64 start_ns, gint64 end_ns), to show a range
 * in the timeline, and "highlight" (guint string id), to mark the slices
 * of a name. Their default handlers act on the page's session: the view
 * fits the range (with a margin, in the zoom history), the name becomes
 * the session's highlight. */

#define KS_TYPE_PAGE (ks_page_get_type ())

G_DECLARE_DERIVABLE_TYPE (KsPage, ks_page, KS, PAGE, GtkWidget)

struct _KsPageClass
{
  GtkWidgetClass parent_class;

  /* Shows @analysis of @trace; both NULL: nothing. */
  void (*refill)    (KsPage     *self,
                     KsTrace    *trace,
                     KsAnalysis *analysis);

  /* Signals */
  void (*navigate)  (KsPage     *self,
                     gint64      start,
                     gint64      end);
  void (*highlight) (KsPage     *self,
                     guint       name);

  gpointer _reserved[8];
};

KsSession  *ks_page_get_session  (KsPage     *self);
void        ks_page_set_session  (KsPage     *self,
                                  KsSession  *session);
/* The analysis shown (given to the last refill), or NULL. */
KsAnalysis *ks_page_get_analysis (KsPage     *self);
/* The trace of the analysis shown, or NULL. */
KsTrace    *ks_page_get_trace    (KsPage     *self);
/* Whether the page shows its latest analysis: no refill is waiting and
 * nothing holds it (a long table still taking its rows). */
gboolean    ks_page_get_filled   (KsPage     *self);
/* Runs a waiting refill now: for a command that reads the page's rows
 * before its turn. */
void        ks_page_fill         (KsPage     *self);
/* A part of the page that shows its rows over several main-loop
 * iterations holds the page unfilled until it releases it. */
void        ks_page_hold_filled    (KsPage     *self);
void        ks_page_release_filled (KsPage     *self);
/* Shows @analysis of @trace and refills now, dropping a waiting refill. */
void        ks_page_set_analysis (KsPage     *self,
                                  KsTrace    *trace,
                                  KsAnalysis *analysis);
void        ks_page_navigate     (KsPage     *self,
                                  gint64      start,
                                  gint64      end);
void        ks_page_highlight    (KsPage     *self,
                                  guint       name);

/* With a @title, covers the page with a status page saying why it is
 * empty and what to record to fill it; with NULL, shows the page again. */
void        ks_page_set_empty    (KsPage     *self,
                                  const char *icon_name,
                                  const char *title,
                                  const char *description);

/* Disposes the template of @page (a widget of @type) and unparents its
 * root, which has no id and so is left in place by GTK. */
void        ks_page_dispose_template (GtkWidget *page,
                                      GType      type);

G_END_DECLS
