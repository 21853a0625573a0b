/* ks-kscope-writer-private.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

/* The writer's parts: ks-kscope-writer.c owns the file (SQLite set-up,
 * batching, the temporary file and its publishing); ks-kscope-writer-meta.c
 * writes the ids, strings, metadata, processes, threads and GPUs;
 * ks-kscope-writer-events.c the tracks, slices, flows, counters, memory
 * events and instants. */

#include <sqlite3.h>

#include <gio/gio.h>

#include "ks-kscope-schema.h"
#include "ks-progress.h"
#include "ks-trace.h"

G_BEGIN_DECLS

typedef struct
{
  sqlite3        *db;
  KsTrace        *trace;
  KsProgress     *progress;
  GCancellable   *cancellable;
  char           *display;          /* file name for messages */

  sqlite3_stmt   *stmts[KS_KSCOPE_N_TABLES];
  guint64         rows[KS_KSCOPE_N_TABLES];
  guint64         pending;          /* rows in the open transaction */
  guint64         done;
  guint64         total;

  gint64         *process_gpid;     /* per process */
  gint64         *thread_gtid;      /* per thread */
  gint64         *track_gpid;       /* per track: its process's globalPid, -1 when none */
  guint32       **launcher;         /* per stream track: launching process per slice */
  guint32         n_implied_flows;  /* leading flows that correlation ids recreate */

  GHashTable     *extra_strings;    /* char* -> id, for strings the trace lacks */
  guint32         next_string;
  GHashTable     *domains;          /* "gpid/category" -> domain id */
  guint32         next_domain;

  guint32         default_category[KS_N_SLICE_KINDS];
  const char     *complete;         /* KS_META complete once the last row is in */
  GString        *args;             /* the args text of the row being written */
} Writer;

static inline void
bind_i64 (sqlite3_stmt *stmt,
          int           col,
          gint64        value)
{
  sqlite3_bind_int64 (stmt, col, value);
}

static inline void
bind_null (sqlite3_stmt *stmt,
           int           col)
{
  sqlite3_bind_null (stmt, col);
}

/* 0 means "none" for correlation and external ids. */
static inline void
bind_nonzero (sqlite3_stmt *stmt,
              int           col,
              guint32       value)
{
  if (value != 0)
    sqlite3_bind_int64 (stmt, col, value);
  else
    sqlite3_bind_null (stmt, col);
}

static inline void
bind_text (sqlite3_stmt *stmt,
           int           col,
           const char   *text)
{
  if (text != NULL)
    sqlite3_bind_text (stmt, col, text, -1, SQLITE_STATIC);
  else
    sqlite3_bind_null (stmt, col);
}

/* The args @id (0 for none) as text. SQLITE_STATIC: every row binds its
 * args right before its step, and w->args outlives the statements
 * (writer_clear finalizes them first), so the text sqlite reads is the
 * row's own. */
static inline void
bind_args (Writer       *w,
           sqlite3_stmt *stmt,
           int           col,
           guint32       id)
{
  if (ks_trace_args (w->trace, id, w->args) != NULL)
    sqlite3_bind_text (stmt, col, w->args->str, -1, SQLITE_STATIC);
  else
    sqlite3_bind_null (stmt, col);
}

/* A string that is not empty, or NULL. */
static inline void
bind_string (Writer       *w,
             sqlite3_stmt *stmt,
             int           col,
             guint32       id)
{
  if (id != 0)
    sqlite3_bind_text (stmt, col, ks_trace_string (w->trace, id), -1, SQLITE_STATIC);
  else
    sqlite3_bind_null (stmt, col);
}

static inline void
bind_gid (sqlite3_stmt *stmt,
          int           col,
          gint64        gid)
{
  if (gid >= 0)
    sqlite3_bind_int64 (stmt, col, gid);
  else
    sqlite3_bind_null (stmt, col);
}

/* The category column: NULL when it is what the table implies. */
static inline void
bind_category (Writer       *w,
               sqlite3_stmt *stmt,
               int           col,
               KsSliceKind   kind,
               guint32       category)
{
  if (category == w->default_category[kind])
    sqlite3_bind_null (stmt, col);
  else
    sqlite3_bind_int64 (stmt, col, category);
}

gboolean       ks_kscope_writer_sqlite_error           (Writer *w,
                                                        int rc,
                                                        GError **error);
gboolean       ks_kscope_writer_exec                   (Writer *w,
                                                        const char *sql,
                                                        GError **error);
sqlite3_stmt * ks_kscope_writer_table_stmt             (Writer *w,
                                                        KsKscopeTable id,
                                                        GError **error);
gboolean       ks_kscope_writer_report_progress        (Writer *w,
                                                        GError **error);
gboolean       ks_kscope_writer_insert_row             (Writer *w,
                                                        KsKscopeTable id,
                                                        sqlite3_stmt *stmt,
                                                        GError **error);
gboolean       ks_kscope_writer_string_id              (Writer *w,
                                                        const char *str,
                                                        guint32 *out_id,
                                                        GError **error);
void           ks_kscope_writer_assign_ids             (Writer *w);
void           ks_kscope_writer_assign_launchers       (Writer *w);
gboolean       ks_kscope_writer_strings                (Writer *w,
                                                        GError **error);
gboolean       ks_kscope_writer_metadata               (Writer *w,
                                                        GError **error);
gboolean       ks_kscope_writer_processes_and_threads  (Writer *w,
                                                        GError **error);
gboolean       ks_kscope_writer_session                (Writer *w,
                                                        GError **error);
gboolean       ks_kscope_writer_gpus                   (Writer *w,
                                                        GError **error);
gboolean       ks_kscope_writer_tracks                 (Writer *w,
                                                        GError **error);
gboolean       ks_kscope_writer_slices                 (Writer *w,
                                                        GError **error);
gboolean       ks_kscope_writer_flows                  (Writer *w,
                                                        GError **error);
gboolean       ks_kscope_writer_counters               (Writer *w,
                                                        GError **error);
gboolean       ks_kscope_writer_memory_events          (Writer *w,
                                                        GError **error);
gboolean       ks_kscope_writer_samples                (Writer *w,
                                                        GError **error);
gboolean       ks_kscope_writer_instants               (Writer *w,
                                                        GError **error);

G_END_DECLS
