/* ks-session-private.h: what ks-session.c and ks-session-view.c share
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ks-rank-summaries.h"
#include "ks-session.h"

G_BEGIN_DECLS

typedef struct
{
  double t0;
  double t1;
} Span;

struct _KsSession
{
  GObject  parent_instance;

  KsTrace          *trace;
  KsTimelineLayout *layout;
  GSettings        *settings;
  double   t0;
  double   t1;

  GArray  *back;               /* Span */
  GArray  *forward;            /* Span */
  gint64   last_push_usec;

  guint32  sel_track;
  guint32  sel_slice;
  guint8   sel_item;           /* SelectedItem: an instant or a memory block instead of a slice */
  guint32  sel_item_a;         /* the instant, or the block's device */
  guint32  sel_item_b;         /* the block */

  gboolean has_range;
  gint64   range_start;
  gint64   range_end;

  KsAnalysisOptions  options;
  KsAnalysis        *analysis;
  GCancellable      *cancellable;   /* of the analysis being computed */
  guint              recompute_id;
  guint              holds;         /* ks_session_hold_analysis() not yet released */
  gboolean           held_recompute; /* an analysis asked for while held */

  /* The name search of the trace: names folded once per trace */
  KsTraceSearch     *searcher;
  GCancellable      *search_cancellable;  /* of the search under way */
  KsSearchResult    *search;
  char              *search_error;
  int                current_match;
  guint32            highlight;

  KsCriticalPath    *path;
  guint              path_step;

  /* Where the trace comes from (ks-session-source.c): its file, or a
   * job over the memory bound */
  GFile             *file;
  KsRankSummaries   *summaries;
  GFile             *job_file;
  guint              loaded_row;
  guint              loading_row;
};

typedef enum
{
  ITEM_NONE = 0,
  ITEM_INSTANT,
  ITEM_MEMORY_BLOCK,
} SelectedItem;

enum {
  PROP_0,
  PROP_TRACE,
  PROP_ANALYSIS,
  PROP_BUSY,
  PROP_VISIBLE_START,
  PROP_VISIBLE_END,
  PROP_SELECTED_TRACK,
  PROP_SELECTED_SLICE,
  PROP_HAS_RANGE,
  PROP_RANGE_START,
  PROP_RANGE_END,
  PROP_SETTINGS,
  PROP_BUSY_INCLUDES_COPIES,
  PROP_INCLUDE_WARMUP,
  PROP_SEARCH,
  PROP_SEARCH_ERROR,
  PROP_CURRENT_MATCH,
  PROP_HIGHLIGHT,
  PROP_CRITICAL_PATH,
  PROP_FILE,
  PROP_SUMMARIES,
  PROP_JOB_FILE,
  PROP_LOADED_ROW,
  PROP_LOADING_ROW,
  N_PROPS
};

enum {
  VISIBLE_CHANGED,
  SELECTION_CHANGED,
  RANGE_CHANGED,
  REVEAL_TRACK,
  N_SIGNALS
};

extern GParamSpec *ks_session_properties[N_PROPS];
extern guint       ks_session_signals[N_SIGNALS];

/* The trace's length (at least 1 µs), for the zoom's bounds. */
double ks_session_trace_span (KsSession *self);
/* What fitting the trace shows: its activity, not the markers Kineto
 * writes after it (a "Record Window End" can lie a second past the
 * last kernel). */
void   ks_session_fit_span   (KsSession *self,
                              double    *t0,
                              double    *t1);

G_END_DECLS
