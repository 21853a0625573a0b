/* ks-compare-view.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "ks-compare.h"
#include "ks-session.h"
#include "ks-timeline.h"

G_BEGIN_DECLS

/* The Compare view: the baseline's timeline above the new run's, aligned
 * at a step and zoomed together while locked; below them the summary
 * table with the paired step charts, and the kernels, operators and
 * steps matched between the runs. Selecting a kernel or operator
 * outlines its occurrences in both timelines.
 *
 * It follows two sessions, "baseline" and "session" (the new run's):
 * once both have an analysis, with the same options, "compare" is
 * their comparison and the view shows it; a new analysis of either
 * (other options) builds it again. Without the new run's session the
 * view is empty and "compare" NULL. Each timeline has a session of its
 * own (ks_compare_view_get_session()), for its zoom. */

#define KS_TYPE_COMPARE_VIEW (ks_compare_view_get_type ())

G_DECLARE_FINAL_TYPE (KsCompareView, ks_compare_view, KS, COMPARE_VIEW, GtkWidget)

GtkWidget  *ks_compare_view_new            (void);
/* The comparison shown, NULL before both runs are analysed. */
KsCompare  *ks_compare_view_get_compare    (KsCompareView  *self);
KsSession  *ks_compare_view_get_session    (KsCompareView  *self,
                                            KsCompareSide   side);
KsTimeline *ks_compare_view_get_timeline   (KsCompareView  *self,
                                            KsCompareSide   side);
/* Zoom and pan of one timeline move the other (on by default). */
gboolean    ks_compare_view_get_locked     (KsCompareView  *self);
void        ks_compare_view_set_locked     (KsCompareView  *self,
                                            gboolean        locked);
/* The step (from 0) at which the timelines line up; without steps
 * they line up at their starts. Shows that step in both. */
guint       ks_compare_view_get_align_step (KsCompareView  *self);
void        ks_compare_view_set_align_step (KsCompareView  *self,
                                            guint           step);
/* The string id outlined in @side's timeline, 0 when none. */
guint32     ks_compare_view_get_outlined   (KsCompareView  *self,
                                            KsCompareSide   side);
/* "summary", "kernels", "operators" or "steps". */
void        ks_compare_view_show_page      (KsCompareView  *self,
                                            const char     *name);

G_END_DECLS
