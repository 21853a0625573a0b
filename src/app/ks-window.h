/* ks-window.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "ks-overview.h"
#include "ks-rank-summaries.h"
#include "ks-session.h"
#include "ks-timeline.h"

G_BEGIN_DECLS

#define KS_TYPE_WINDOW (ks_window_get_type ())

G_DECLARE_FINAL_TYPE (KsWindow, ks_window, KS, WINDOW, AdwApplicationWindow)

KsWindow   *ks_window_new          (GtkApplication *application);
/* Loads @file in the background, showing progress; errors go to a dialog. */
void        ks_window_open         (KsWindow       *self,
                                    GFile          *file);
/* @file (a trace) with @snapshot, the memory snapshot of its run, on
 * one time axis. */
void        ks_window_open_with_snapshot (KsWindow     *self,
                                          GFile        *file,
                                          GFile        *snapshot);
/* TRUE when the window shows no trace and is not loading one. */
gboolean    ks_window_is_empty     (KsWindow       *self);
gboolean    ks_window_get_loading  (KsWindow       *self);
/* The window's session, from the first trace it shows on (notify::session
 * then), else NULL. Later traces replace the session's trace. */
KsSession  *ks_window_get_session  (KsWindow       *self);
KsTimeline *ks_window_get_timeline (KsWindow       *self);
KsOverview *ks_window_get_overview (KsWindow       *self);
GFile      *ks_window_get_file     (KsWindow       *self);
/* The summaries of the job the window shows when its folder was over
 * the memory bound (see ks_rank_summaries_memory_bound()), or NULL. */
KsRankSummaries *ks_window_get_summaries (KsWindow *self);

/* Side panel pages, declared in ks-window.ui: "summary", "gaps",
 * "operators", "kernels", "memory" (KsPage, following the session) and
 * "selection". */
GtkWidget  *ks_window_get_page     (KsWindow       *self,
                                    const char     *name);
void        ks_window_show_page    (KsWindow       *self,
                                    const char     *name);

/* Compares the window's trace (the baseline) with @file, loaded and
 * analysed in the background; shows the Compare view when done, a
 * dialog naming the file when it cannot be read. */
void        ks_window_compare_with     (KsWindow       *self,
                                        GFile          *file);
/* TRUE while loading the file to compare with. */
gboolean    ks_window_get_comparing    (KsWindow       *self);
/* The KsCompareView shown, or NULL. */
GtkWidget  *ks_window_get_compare_view (KsWindow       *self);

/* The bundled demo trace, installed or beside the build tree; NULL if absent. */
GFile      *ks_window_find_demo_trace (void);

G_END_DECLS
