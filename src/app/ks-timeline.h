/* ks-timeline.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "ks-critical-path.h"

#include "ks-session.h"
#include "ks-timeline-layout.h"

G_BEGIN_DECLS

/* The swimlanes: one widget drawing only the rows in its viewport (it is
 * a GtkScrollable for its vertical scroll), with the time ruler on top.
 * It follows its "session": the rows of the session's trace (the layout
 * is the session's), its visible span, which it also changes, its
 * selection, and the slices of its search matches or its highlighted
 * name, outlined. */

#define KS_TYPE_TIMELINE (ks_timeline_get_type ())

G_DECLARE_FINAL_TYPE (KsTimeline, ks_timeline, KS, TIMELINE, GtkWidget)

GtkWidget        *ks_timeline_new              (void);
KsSession        *ks_timeline_get_session      (KsTimeline    *self);
void              ks_timeline_set_session      (KsTimeline    *self,
                                                KsSession     *session);
/* The session's layout while its trace is shown, else NULL. */
KsTimelineLayout *ks_timeline_get_layout       (KsTimeline    *self);
/* Widget coordinates of a time and of a slice's lane (centre); FALSE
 * when the slice's row is collapsed or scrolled out of view. */
double            ks_timeline_time_to_x        (KsTimeline    *self,
                                                double         t);
double            ks_timeline_x_to_time        (KsTimeline    *self,
                                                double         x);
gboolean          ks_timeline_get_slice_point  (KsTimeline    *self,
                                                guint32        track,
                                                guint32        slice,
                                                double        *x,
                                                double        *y);
/* Widget y of the top of layout row @row; FALSE when it is collapsed or
 * scrolled out of view. */
gboolean          ks_timeline_get_row_top      (KsTimeline    *self,
                                                guint          row,
                                                double        *y);
/* Has the fonts the rows are drawn in matched ahead of the first rows,
 * while a file loads. */
void              ks_timeline_prepare_fonts    (KsTimeline    *self);
/* Scrolls vertically so that @track's row is in view (expanding its group). */
void              ks_timeline_reveal_track     (KsTimeline    *self,
                                                guint32        track);
/* The same for layout row @row. */
void              ks_timeline_reveal_row       (KsTimeline    *self,
                                                guint          row);
void              ks_timeline_toggle_group     (KsTimeline    *self,
                                                guint          row);
/* Outlines the slices on the critical path of step @step (its index in
 * the analysis's steps) of @path and draws arrows where the path goes
 * from one row to another; NULL for none. */
void              ks_timeline_set_critical_path (KsTimeline     *self,
                                                 KsCriticalPath *path,
                                                 guint           step);
/* The slices outlined on the critical path, 0 when none is shown. */
guint             ks_timeline_get_n_path_slices (KsTimeline     *self);
/* Number of slice arrows (launch flows) drawn for the current selection. */
guint             ks_timeline_get_n_flow_arrows (KsTimeline   *self);
/* The operations arrow @i stands for (a CUDA graph launch's, drawn as
 * one arrow and one span holding them), and their span; 0 past the end. */
guint             ks_timeline_get_flow_arrow_span (KsTimeline   *self,
                                                   guint         i,
                                                   gint64       *start,
                                                   gint64       *end);
/* What the tooltip at (@x, @y) says, or NULL; @area (may be NULL) gets
 * the slice's rectangle, or a zero size. */
char             *ks_timeline_dup_tooltip_markup (KsTimeline   *self,
                                                  double        x,
                                                  double        y,
                                                  GdkRectangle *area);

G_END_DECLS
