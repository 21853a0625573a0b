/* ks-sqlite-samples.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-sqlite-reader"

/* Sampled stacks: Nsight's COMPOSITE_EVENTS (one row a sample) and
 * SAMPLING_CALLCHAINS (one row a frame, stackDepth 0 innermost), as a
 * .kscope recording has them for Python and an Nsight export for its CPU
 * samples. Our lineNumber column is optional (Nsight has none). */

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "ks-sqlite-reader-private.h"

/* Frames of one sample read at most: a hostile depth must not make one
 * sample's array large; the builder keeps the innermost 256 anyway. */
#define MAX_FRAMES_READ 4096

typedef struct
{
  gint64  ts;
  guint32 thread;
  gboolean used;
} Event;

typedef struct
{
  gint64        depth;
  KsSampleFrame frame;
} Frame;

static int
compare_frames (gconstpointer a,
                gconstpointer b)
{
  const Frame *x = a;
  const Frame *y = b;

  return (x->depth > y->depth) - (x->depth < y->depth);
}

/* The frames gathered for @id: a sample of the event, sorted innermost
 * first (holes in stackDepth close up). */
static void
flush_sample (KsSqliteReader *r,
              GHashTable     *events,
              gint64          id,
              GArray         *frames,
              GArray         *sorted)
{
  Event *e = g_hash_table_lookup (events, &id);

  if (frames->len == 0)
    return;
  if (e == NULL || e->used)
    {
      /* a frame of no sample, or of one already read */
      r->skipped += frames->len;
      g_array_set_size (frames, 0);
      return;
    }
  e->used = TRUE;
  g_array_sort (frames, compare_frames);
  g_array_set_size (sorted, 0);
  for (guint i = 0; i < frames->len; i++)
    g_array_append_val (sorted, g_array_index (frames, Frame, i).frame);
  ks_trace_builder_add_sample (r->b, e->thread, e->ts, (const KsSampleFrame *) (gpointer) sorted->data, sorted->len);
  g_array_set_size (frames, 0);
}

gboolean
_ks_sqlite_load_samples (KsSqliteReader  *r,
                         GError         **error)
{
  static const char * const event_columns[] = { "id", "start", "globalTid" };
  static const char * const frame_columns[] = { "id", "symbol", "module", "stackDepth", "lineNumber" };
  g_autoptr(GHashTable) events = NULL;
  g_autoptr(GArray) frames = g_array_new (FALSE, FALSE, sizeof (Frame));
  g_autoptr(GArray) sorted = g_array_new (FALSE, FALSE, sizeof (KsSampleFrame));
  sqlite3_stmt *stmt;
  KsSqliteResult found;
  gboolean failed = FALSE;
  gint64 current = G_MININT64;

  if (!_ks_sqlite_has_table (r, "COMPOSITE_EVENTS") || !_ks_sqlite_has_table (r, "SAMPLING_CALLCHAINS"))
    return TRUE;

  events = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  if ((found = _ks_sqlite_select (r, "COMPOSITE_EVENTS", event_columns, G_N_ELEMENTS (event_columns), 3,
                                  "globalTid IS NOT NULL", &stmt, error)) != KS_SQLITE_READ)
    return found == KS_SQLITE_ABSENT;
  KS_SQLITE_READ_ROWS (r, stmt, failed, error)
    {
      gint64 *key = g_new (gint64, 1);
      Event *e = g_new0 (Event, 1);

      *key = col_i64 (stmt, 0);
      e->ts = col_ts (r, stmt, 1);
      e->thread = _ks_sqlite_reader_thread (r, col_i64 (stmt, 2));
      g_hash_table_replace (events, key, e);
    }
  if (!ks_sqlite_finish (stmt, failed))
    return FALSE;
  if (g_hash_table_size (events) == 0)
    return TRUE;

  if ((found = _ks_sqlite_select (r, "SAMPLING_CALLCHAINS", frame_columns, G_N_ELEMENTS (frame_columns), 4,
                                  NULL, &stmt, error)) != KS_SQLITE_READ)
    return found == KS_SQLITE_ABSENT;
  /* A sample's frames come together (Nsight writes them so, and so do we). */
  KS_SQLITE_READ_ROWS (r, stmt, failed, error)
    {
      gint64 id = col_i64 (stmt, 0);
      gint64 line = col_null (stmt, 4) ? 0 : col_i64 (stmt, 4);
      Frame f;

      if (id != current)
        {
          flush_sample (r, events, current, frames, sorted);
          current = id;
        }
      if (frames->len >= MAX_FRAMES_READ)
        continue;
      f.depth = col_i64 (stmt, 3);
      f.frame.function = sid (r, col_i64 (stmt, 1));
      f.frame.file = sid (r, col_i64 (stmt, 2));
      f.frame.line = line > 0 && line <= G_MAXUINT32 ? (guint32) line : 0;
      g_array_append_val (frames, f);
    }
  if (!ks_sqlite_finish (stmt, failed))
    return FALSE;
  flush_sample (r, events, current, frames, sorted);
  return TRUE;
}
