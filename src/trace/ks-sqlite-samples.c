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
 * samples. Our lineNumber column is optional (Nsight has none). Nsight's
 * chain id is its sample's id; ours is COMPOSITE_EVENTS.callchainId,
 * one chain shared by every sample of the same stack. Either way the
 * events are read first, grouped by chain, and the chains' frames are
 * streamed: a chain's samples are added when its frames are complete. */

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "ks-sqlite-reader-private.h"

/* Frames of one sample read at most: a hostile depth must not make one
 * sample's array large; the builder keeps the innermost 256 anyway. */
#define MAX_FRAMES_READ 4096

#define NO_EVENT G_MAXUINT32

typedef struct
{
  gint64  ts;
  guint32 thread : 31;
  guint32 waiting : 1;  /* our waiting column; Nsight has none */
  guint32 next;     /* the chain's next event, or NO_EVENT */
} Event;

/* The events of one chain id: a list through Event.next. */
typedef struct
{
  guint32  first;
  gboolean used;
} Chain;

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

/* The frames gathered for @id: the stack of each sample of that chain,
 * sorted innermost first (holes in stackDepth close up). */
static void
flush_chain (KsSqliteReader *r,
             GHashTable     *chains,
             GArray         *events,
             gint64          id,
             GArray         *frames,
             GArray         *sorted)
{
  Chain *c = g_hash_table_lookup (chains, &id);

  if (frames->len == 0)
    return;
  if (c == NULL || c->used)
    {
      /* frames of no sample, or of a chain already read */
      r->skipped += frames->len;
      g_array_set_size (frames, 0);
      return;
    }
  c->used = TRUE;
  g_array_sort (frames, compare_frames);
  g_array_set_size (sorted, 0);
  for (guint i = 0; i < frames->len; i++)
    g_array_append_val (sorted, g_array_index (frames, Frame, i).frame);
  for (guint32 e = c->first; e != NO_EVENT; e = g_array_index (events, Event, e).next)
    {
      const Event *ev = &g_array_index (events, Event, e);

      ks_trace_builder_add_sample_full (r->b, ev->thread, ev->ts, ev->waiting,
                                        (const KsSampleFrame *) (gpointer) sorted->data, sorted->len);
    }
  g_array_set_size (frames, 0);
}

/* Samples of chains the file lacks. Only where callchainId says which
 * chain a sample has: an Nsight event without frames is no error. */
static guint64
count_unused (GHashTable *chains,
              GArray     *events)
{
  GHashTableIter iter;
  Chain *c;
  guint64 n = 0;

  g_hash_table_iter_init (&iter, chains);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &c))
    if (!c->used)
      for (guint32 e = c->first; e != NO_EVENT; e = g_array_index (events, Event, e).next)
        n++;
  return n;
}

gboolean
_ks_sqlite_load_samples (KsSqliteReader  *r,
                         GError         **error)
{
  static const char * const event_columns[] = { "id", "start", "globalTid", "callchainId", "waiting" };
  static const char * const frame_columns[] = { "id", "symbol", "module", "stackDepth", "lineNumber" };
  g_autoptr(GHashTable) chains = NULL;
  g_autoptr(GArray) events = g_array_new (FALSE, FALSE, sizeof (Event));
  g_autoptr(GArray) frames = g_array_new (FALSE, FALSE, sizeof (Frame));
  g_autoptr(GArray) sorted = g_array_new (FALSE, FALSE, sizeof (KsSampleFrame));
  GHashTable *event_have = NULL;
  gboolean shared_chains;
  KsSqliteScan *scan;
  KsSqliteRow row;
  KsSqliteResult found;
  gboolean failed = FALSE;
  gint64 current = G_MININT64;

  if (!_ks_sqlite_has_table (r, "COMPOSITE_EVENTS") || !_ks_sqlite_has_table (r, "SAMPLING_CALLCHAINS"))
    return TRUE;
  if ((found = _ks_sqlite_table_columns (r, "COMPOSITE_EVENTS", &event_have, error)) != KS_SQLITE_READ)
    return found == KS_SQLITE_ABSENT;
  shared_chains = g_hash_table_contains (event_have, "callchainId");

  chains = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  if ((found = _ks_sqlite_scan_open (r, "COMPOSITE_EVENTS", event_columns, G_N_ELEMENTS (event_columns), 3, "iiiii",
                                     "globalTid IS NOT NULL", &scan, error)) != KS_SQLITE_READ)
    return found == KS_SQLITE_ABSENT;
  KS_SQLITE_SCAN_ROWS (r, scan, row, failed, error)
    {
      gint64 id = row_i64 (&row, 0);
      /* without callchainId (Nsight) a chain is its event's */
      gint64 chain_id = row_null (&row, 3) ? id : row_i64 (&row, 3);
      Chain *c;
      Event e;

      /* Event.next and Chain.first are 32-bit */
      if (events->len == NO_EVENT)
        break;
      c = g_hash_table_lookup (chains, &chain_id);
      if (c == NULL)
        {
          c = g_new0 (Chain, 1);
          c->first = NO_EVENT;
          g_hash_table_insert (chains, g_memdup2 (&chain_id, sizeof chain_id), c);
        }
      e.ts = row_ts (r, &row, 1);
      e.thread = _ks_sqlite_reader_thread (r, row_i64 (&row, 2));
      e.waiting = !row_null (&row, 4) && row_i64 (&row, 4) != 0;
      e.next = c->first;
      c->first = events->len;
      g_array_append_val (events, e);
    }
  _ks_sqlite_scan_free (scan);
  if (failed)
    return FALSE;
  if (events->len == 0)
    return TRUE;

  if ((found = _ks_sqlite_scan_open (r, "SAMPLING_CALLCHAINS", frame_columns, G_N_ELEMENTS (frame_columns), 4, "iiiii",
                                     NULL, &scan, error)) != KS_SQLITE_READ)
    return found == KS_SQLITE_ABSENT;
  /* A chain's frames come together (Nsight writes them so, and so do we). */
  KS_SQLITE_SCAN_ROWS (r, scan, row, failed, error)
    {
      gint64 id = row_i64 (&row, 0);
      gint64 line = row_null (&row, 4) ? 0 : row_i64 (&row, 4);
      Frame f;

      if (id != current)
        {
          flush_chain (r, chains, events, current, frames, sorted);
          current = id;
        }
      if (frames->len >= MAX_FRAMES_READ)
        continue;
      f.depth = row_i64 (&row, 3);
      f.frame.function = sid (r, row_i64 (&row, 1));
      f.frame.file = sid (r, row_i64 (&row, 2));
      f.frame.line = line > 0 && line <= G_MAXUINT32 ? (guint32) line : 0;
      g_array_append_val (frames, f);
    }
  _ks_sqlite_scan_free (scan);
  if (failed)
    return FALSE;
  flush_chain (r, chains, events, current, frames, sorted);
  if (shared_chains)
    r->skipped += count_unused (chains, events);
  return TRUE;
}
