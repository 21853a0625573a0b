/* ks-record-writer-private.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

/* What the writer's files (ks-record-writer.c, ks-record-writer-samples.c)
 * share. */

#include <sqlite3.h>

#include "ks-kscope-schema.h"
#include "ks-record-writer.h"

G_BEGIN_DECLS

struct _KsRecordWriter
{
  sqlite3        *db;
  char           *path;
  sqlite3_stmt   *stmts[KS_KSCOPE_N_TABLES];
  GHashTable     *strings;      /* text → id */
  guint32         next_string;
  guint32         next_counter;
  guint64         start_mono;
  gint64          start_utc;
  gint64          last_commit_us;
  GError         *error;
  KsRecordCounts  counts;
  /* As of the last commit: what the file holds when writing fails. */
  KsRecordCounts  committed;
  guint64         committed_mono;
  guint64         events;        /* event rows asked for */
  guint64         committed_events;
  GPtrArray      *pending_meta;  /* name, value, …: KS_META set after a failure */
  gint64          next_sample;   /* COMPOSITE_EVENTS.id */
  /* Sampled stacks (ks-record-writer-samples.c): the prefix tree's
   * nodes, an open-addressing index of them (node + 1, 0 empty) */
  GArray         *stack_nodes;   /* KsRecordStackNode */
  guint32        *stack_slots;
  guint32         n_stack_slots;
  guint32         max_stack_nodes;
  guint32         next_chain;    /* SAMPLING_CALLCHAINS.id */
};

/* One frame of the sampled stacks under its callers. */
typedef struct
{
  KsRecordStack parent;     /* the caller's, KS_RECORD_STACK_NONE for an outermost frame */
  guint32       function;
  guint32       file;
  guint32       line;
  guint32       chain;      /* SAMPLING_CALLCHAINS id once written, else 0 */
} KsRecordStackNode;

/* The insert statement of @table (created with its first row), or NULL
 * once writing stopped. */
sqlite3_stmt *ks_record_writer_stmt (KsRecordWriter *self,
                                     KsKscopeTable   table);
/* Runs and resets @s; @counted: one more row of the file. */
void          ks_record_writer_step (KsRecordWriter *self,
                                     sqlite3_stmt   *s,
                                     gboolean        counted);
/* @t (CLOCK_MONOTONIC ns) from the session's start */
gint64        ks_record_writer_rel  (KsRecordWriter *self,
                                     guint64         t);

G_END_DECLS
