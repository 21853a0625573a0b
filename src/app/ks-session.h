/* ks-session.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "ks-analysis.h"
#include "ks-memory-blocks.h"
#include "ks-trace.h"

G_BEGIN_DECLS

/* What the user looks at in a window: the trace, its analysis, the
 * visible time span with its zoom history, the selected slice and the
 * selected time range. Every view of a window shares one session and
 * follows its properties (trace, analysis, busy, visible-start,
 * visible-end, selected-track, selected-slice, has-range, range-start,
 * range-end; all notify) or its signals "visible-changed",
 * "selection-changed" and "range-changed".
 *
 * A new trace resets the view, the selection and the range: listeners
 * of notify::trace rebuild from scratch (the *-changed signals are not
 * emitted for that reset, the property notifications are, after
 * notify::trace). The session then computes the trace's analysis in the
 * background: "busy" is TRUE meanwhile and "analysis" is NULL. */

#define KS_TYPE_SESSION (ks_session_get_type ())

G_DECLARE_FINAL_TYPE (KsSession, ks_session, KS, SESSION, GObject)

/* @trace may be NULL: a session with nothing to show yet. */
KsSession  *ks_session_new                 (KsTrace    *trace);
KsTrace    *ks_session_get_trace           (KsSession  *self);
void        ks_session_set_trace           (KsSession  *self,
                                            KsTrace    *trace);

/* The analysis of the trace, or NULL while there is none (no trace, or
 * being computed, or it failed). */
KsAnalysis *ks_session_get_analysis        (KsSession  *self);
gboolean    ks_session_get_busy            (KsSession  *self);
void        ks_session_hold_analysis       (KsSession  *self);
void        ks_session_release_analysis    (KsSession  *self);
const KsAnalysisOptions *
            ks_session_get_analysis_options (KsSession *self);
/* The options of the next analyses; when they differ, the trace is
 * analysed again from an idle (callers are often handlers of the
 * widgets the new analysis rebuilds). */
void        ks_session_set_analysis_options (KsSession               *self,
                                             const KsAnalysisOptions *options);

void        ks_session_get_visible         (KsSession  *self,
                                            double     *t0,
                                            double     *t1);
/* Sets the visible span (clamped to the trace and to a minimum span). */
void        ks_session_set_visible         (KsSession  *self,
                                            double      t0,
                                            double      t1);
/* Zooms by @factor (< 1 zooms in) keeping the time @anchor where it is. */
void        ks_session_zoom                (KsSession  *self,
                                            double      factor,
                                            double      anchor);
void        ks_session_pan                 (KsSession  *self,
                                            double      dt);
/* Zoom history: remember the current span before a jump. Successive
 * calls within a short time (one wheel gesture) are recorded once. */
void        ks_session_push_history        (KsSession  *self);
gboolean    ks_session_can_go_back         (KsSession  *self);
gboolean    ks_session_can_go_forward      (KsSession  *self);
gboolean    ks_session_go_back             (KsSession  *self);
gboolean    ks_session_go_forward          (KsSession  *self);
/* Jumps (recorded in the history) to the whole trace or to a span with a margin. */
void        ks_session_fit_all             (KsSession  *self);
void        ks_session_fit                 (KsSession  *self,
                                            gint64      start,
                                            gint64      end);

void        ks_session_select_slice        (KsSession  *self,
                                            guint32     track,
                                            guint32     slice);
void        ks_session_clear_selection     (KsSession  *self);
gboolean    ks_session_get_selected_slice  (KsSession  *self,
                                            guint32    *track,
                                            guint32    *slice);
/* Instead of a slice, an instant (an index in KsTrace.instants) or a
 * memory snapshot's block (ks_memory_blocks_get()); selecting one clears
 * the others, and each emits "selection-changed". */
void        ks_session_select_instant      (KsSession  *self,
                                            guint32     instant);
gboolean    ks_session_get_selected_instant (KsSession *self,
                                            guint32    *instant);
void        ks_session_select_memory_block (KsSession  *self,
                                            guint       device,
                                            guint32     block);
gboolean    ks_session_get_selected_memory_block (KsSession *self,
                                                  guint     *device,
                                                  guint32   *block);

void        ks_session_select_range        (KsSession  *self,
                                            gint64      start,
                                            gint64      end);
void        ks_session_clear_range         (KsSession  *self);
gboolean    ks_session_get_range           (KsSession  *self,
                                            gint64     *start,
                                            gint64     *end);

G_END_DECLS
