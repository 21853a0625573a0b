/* ks-window-private.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ks-compare-view.h"
#include "ks-document-loader.h"
#include "ks-interval-bar.h"
#include "ks-overview.h"
#include "ks-page-slot.h"
#include "ks-search-bar.h"
#include "ks-selection-page.h"
#include "ks-side-panel.h"
#include "ks-status-bar.h"
#include "ks-window.h"
#include "pages/ks-gaps-page.h"
#include "pages/ks-ranks-page.h"

G_BEGIN_DECLS

struct _KsWindow
{
  AdwApplicationWindow  parent_instance;

  /* Template widgets */
  AdwWindowTitle       *window_title;
  KsSearchBar          *search_bar;
  GtkStack             *main_stack;
  GtkListBox           *recent_list;
  GtkWidget            *recent_group;
  KsDocumentLoader     *loader;       /* the progress page binds it */
  GtkLabel             *loading_title;
  KsOverview           *overview;
  KsTimeline           *timeline;
  KsSidePanel          *side_panel;
  GtkToggleButton      *side_panel_button;
  KsStatusBar          *status_bar;
  KsIntervalBar        *interval_bar;

  /* State */
  KsSession            *session;      /* from the first trace or job on */
  double                nvsmi_interval; /* an nvidia-smi log's, from its bar; 0: 1 s */
  GdkFrameClock        *first_frame_clock; /* the session's analysis is held until it paints */
  gulong                first_frame_id;
  guint                 first_frame_timeout;

  /* Compare With…: the view (built for the first comparison) follows
   * the new run's session; the load and analysis before it shows them */
  KsPageSlot           *compare_slot;
  KsSession            *compare_session;
  GCancellable         *compare_cancellable;
};

void _ks_window_class_actions_init (KsWindowClass *klass);
void _ks_window_actions_update     (KsWindow      *self);
/* ks-window-search.c: the find actions follow the session's search
 * from its making on; stepping to a match brings it into view. */
void _ks_window_search_init_session (KsWindow     *self);
void _ks_window_search_step        (KsWindow      *self,
                                    int            direction);

/* ks-window-status.c: the subtitle, and the interval bar of an
 * nvidia-smi log without times */
void _ks_window_update_subtitle    (KsWindow      *self);
void _ks_window_update_interval_bar (KsWindow     *self);

/* ks-window-actions.c: the analysis side of the window; the ]/[ keys
 * step through the Gaps page. The options of a job's summaries: the
 * session's, or before there is one the application's settings. */
void _ks_window_analysis_init          (KsWindow          *self);
void _ks_window_analysis_get_options   (KsWindow          *self,
                                        KsAnalysisOptions *options);

/* A dialog with a Close button. */
void _ks_window_show_error             (KsWindow          *self,
                                        const char        *heading,
                                        const char        *message);

/* ks-window-compare.c */
void _ks_window_compare_class_init     (KsWindowClass     *klass);
void _ks_window_compare_update_actions (KsWindow          *self);
/* Closes the Compare view, back to the trace. */
void _ks_window_compare_clear          (KsWindow          *self);
void _ks_window_compare_cancel         (KsWindow          *self);
/* What the timeline keys and zoom act on: the baseline's timeline and
 * session while the Compare view is shown (the new run follows it when
 * locked), else the window's. */
GtkWidget *_ks_window_get_active_timeline (KsWindow       *self);
KsSession *_ks_window_get_active_session  (KsWindow       *self);

G_END_DECLS
