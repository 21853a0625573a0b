/* ks-session.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "ks-analysis.h"
#include "ks-critical-path.h"
#include "ks-timeline-layout.h"
#include "ks-memory-blocks.h"
#include "ks-rank-summaries.h"
#include "ks-trace.h"
#include "ks-trace-search.h"

G_BEGIN_DECLS

/* What the user looks at in a window: the trace, its rows' layout, its
 * analysis and the options of it, the visible time span with its zoom
 * history, the selected slice and the selected time range, the matches
 * of a name search and a highlighted name. Every view of a window
 * shares one session and follows its properties (trace, analysis, busy,
 * visible-start, visible-end, selected-track, selected-slice, has-range,
 * range-start, range-end, busy-includes-copies, include-warmup, search,
 * search-error, current-match, highlight, critical-path, file,
 * summaries, job-file, loaded-row, loading-row; all notify) or
 * its signals
 * "visible-changed", "selection-changed", "range-changed" and
 * "reveal-track".
 *
 * The analysis options come from the GSettings given at construction
 * (the keys gap-threshold-us, kernel-wait-us, busy-includes-copies and
 * include-warmup): the session follows their changes and analyses the
 * trace again. Without settings, the boolean options are the session's
 * own properties.
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
/* The same with its analysis options from @settings (may be NULL). */
KsSession  *ks_session_new_with_settings   (KsTrace    *trace,
                                            GSettings  *settings);
GSettings  *ks_session_get_settings        (KsSession  *self);
KsTrace    *ks_session_get_trace           (KsSession  *self);
void        ks_session_set_trace           (KsSession  *self,
                                            KsTrace    *trace);
/* The rows of the trace as the timeline draws them (which groups are
 * expanded is the session's too); NULL without a trace. */
KsTimelineLayout *
            ks_session_get_layout          (KsSession  *self);

/* The analysis options @settings holds (defaults for NULL). */
void        ks_session_options_from_settings (GSettings         *settings,
                                              KsAnalysisOptions *options);

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

/* Asks the views to bring @track's row into view ("reveal-track"),
 * wherever their rows were scrolled to. */
void        ks_session_reveal_track        (KsSession  *self,
                                            guint32     track);

void        ks_session_select_range        (KsSession  *self,
                                            gint64      start,
                                            gint64      end);
void        ks_session_clear_range         (KsSession  *self);
gboolean    ks_session_get_range           (KsSession  *self,
                                            gint64     *start,
                                            gint64     *end);

/* The name search: ks_session_search() starts it in a worker (a newer
 * search cancels the older one); "search" is then the result, or NULL
 * while none is shown, and "search-error" says why an expression was
 * refused. An empty @text ends the search. */
void        ks_session_search              (KsSession  *self,
                                            const char *text,
                                            gboolean    regex);
KsSearchResult *
            ks_session_get_search          (KsSession  *self);
const char *ks_session_get_search_error    (KsSession  *self);
/* The match stepped to last, -1 before the first step. */
int         ks_session_get_current_match   (KsSession  *self);
/* Steps to the next (@direction > 0) or previous match, starting from
 * the first that starts in the view; NULL when there are none. */
const KsSearchMatch *
            ks_session_step_match          (KsSession  *self,
                                            int         direction);

/* A name a page points at (a string id of the trace, KS_NO_INDEX for
 * none): the timeline outlines its slices instead of the matches. A new
 * trace or a new search clears it. */
guint32     ks_session_get_highlight       (KsSession  *self);
void        ks_session_set_highlight       (KsSession  *self,
                                            guint32     name);

/* The critical path whose step @step (its index in the analysis's
 * steps) the timeline outlines, or NULL ("critical-path"); a new trace
 * clears it. */
KsCriticalPath *
            ks_session_get_critical_path   (KsSession      *self,
                                            guint          *step);
void        ks_session_set_critical_path   (KsSession      *self,
                                            KsCriticalPath *path,
                                            guint           step);

/* The file the trace was read from (NULL: none, or not a file); set
 * it before the trace, for the views that read it on notify::trace. */
GFile      *ks_session_get_file            (KsSession       *self);
void        ks_session_set_file            (KsSession       *self,
                                            GFile           *file);

/* A job too large to load whole: its summaries and its folder (both
 * NULL: none), shown by the Ranks pages. Setting them clears the loaded
 * row; the trace, if any, is the caller's to let go. */
void        ks_session_set_job             (KsSession       *self,
                                            KsRankSummaries *summaries,
                                            GFile           *file);
KsRankSummaries *
            ks_session_get_summaries       (KsSession       *self);
GFile      *ks_session_get_job_file        (KsSession       *self);
/* The row of the summaries whose trace the session holds. */
guint       ks_session_get_loaded_row      (KsSession       *self);
void        ks_session_set_loaded_row      (KsSession       *self,
                                            guint            row);
/* The row whose trace is being loaded, to take the place of the loaded
 * one; KS_NO_INDEX while a file of its own (or none) is. */
guint       ks_session_get_loading_row     (KsSession       *self);
void        ks_session_set_loading_row     (KsSession       *self,
                                            guint            row);

G_END_DECLS
