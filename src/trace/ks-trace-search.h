/* ks-trace-search.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "ks-trace.h"

G_BEGIN_DECLS

/* A search of a trace's slices by name: a case-insensitive substring
 * (or a caseless regular expression) is matched against each distinct
 * name once, then the slices bearing a matching name are collected in
 * time order. The names are case-folded once per KsTraceSearch, by the
 * first search; searches run in a worker and stop early when cancelled,
 * so the main thread never scans the slices. */

typedef struct
{
  guint32 track;
  guint32 slice;
  gint64  start;
} KsSearchMatch;

typedef enum
{
  KS_TRACE_SEARCH_DEFAULT = 0,
  KS_TRACE_SEARCH_REGEX   = 1 << 0,
} KsTraceSearchFlags;

/* What a search found (immutable, reference counted). */
typedef struct _KsSearchResult KsSearchResult;

#define KS_TYPE_SEARCH_RESULT (ks_search_result_get_type ())

GType                ks_search_result_get_type      (void) G_GNUC_CONST;
KsSearchResult      *ks_search_result_ref           (KsSearchResult *self);
void                 ks_search_result_unref         (KsSearchResult *self);
const char          *ks_search_result_get_text      (KsSearchResult *self);
/* One byte per string id of the trace, 1 where the name matches. */
const guint8        *ks_search_result_get_names     (KsSearchResult *self,
                                                     guint32        *n_names);
guint                ks_search_result_get_n_names_matched (KsSearchResult *self);
/* The matching slices, by start (then track, then slice). */
guint                ks_search_result_get_n_matches (KsSearchResult *self);
const KsSearchMatch *ks_search_result_get_match     (KsSearchResult *self,
                                                     guint           i);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (KsSearchResult, ks_search_result_unref)

#define KS_TYPE_TRACE_SEARCH (ks_trace_search_get_type ())

G_DECLARE_FINAL_TYPE (KsTraceSearch, ks_trace_search, KS, TRACE_SEARCH, GObject)

KsTraceSearch  *ks_trace_search_new          (KsTrace             *trace);
KsTrace        *ks_trace_search_get_trace    (KsTraceSearch       *self);
/* Fails with G_IO_ERROR_CANCELLED, or with G_REGEX_ERROR for an
 * expression that does not compile. Safe to call from any thread. */
KsSearchResult *ks_trace_search_run          (KsTraceSearch       *self,
                                              const char          *text,
                                              KsTraceSearchFlags   flags,
                                              GCancellable        *cancellable,
                                              GError             **error);
void            ks_trace_search_run_async    (KsTraceSearch       *self,
                                              const char          *text,
                                              KsTraceSearchFlags   flags,
                                              GCancellable        *cancellable,
                                              GAsyncReadyCallback  callback,
                                              gpointer             user_data);
KsSearchResult *ks_trace_search_run_finish   (KsTraceSearch       *self,
                                              GAsyncResult        *result,
                                              GError             **error);

G_END_DECLS
