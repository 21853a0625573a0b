/* ks-sqlite-reserve.c: each track of a .kscope sized once, ahead
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The builder doubled each track's columns as its slices came, copying
 * them at every step: 14.5 M of the loading thread's 81 M instructions
 * for the slices of a 100 MB trace's .kscope. A .kscope writes each
 * slice table track by track, every track's rows in the order of their
 * start times, and indexes each table by its track's key and start
 * (KS_SLICES by trackId, the CUDA and OS calls by globalTid, the GPU
 * tables by deviceId and streamId). So two descents of an index, the
 * first and the last entry of a key, give the rowids of a track's first
 * and last row, and the rows between are the track's. Before the slice
 * tables are read, each track is given room for the sum over the tables
 * (ks_trace_builder_reserve_slices()).
 *
 * The counts are hints: a file written otherwise, or damaged, can give
 * any. A table whose counts add up to more rows than its rowids span,
 * or than the file could hold (one row per 16 bytes), gives none; a key
 * that two tracks share gives none; a file of fewer than ROWS_PER_KEY
 * rows a key on average is not asked (the descents would cost more
 * than the doubling). A track given too few slices grows as
 * before; finishing shrinks one given too many to its slices; the model
 * is the same either way. KINESCOPE_SQLITE_RUNS=runs leaves the tracks
 * to double, as before.
 */

#define G_LOG_DOMAIN "ks-sqlite-reader"

#include "config.h"

#include <string.h>

#include "ks-sqlite-reader-private.h"

/* Below this many rows a key, two descents cost more than they save. */
#define ROWS_PER_KEY 1024
/* No slice row of any table (with its index entries) is smaller. */
#define MIN_ROW_BYTES 16

typedef enum
{
  KEY_TRACK_ID,   /* KS_TRACKS.id */
  KEY_THREAD,     /* globalTid of a thread track */
  KEY_STREAM,     /* deviceId, streamId of a stream track */
} KeyKind;

static const struct
{
  const char *table;
  const char *index;
  KeyKind     kind;
} hint_tables[] = {
  { "KS_SLICES", "KS_SLICES_track", KEY_TRACK_ID },
  { "CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_RUNTIME_thread", KEY_THREAD },
  { "OSRT_API", "OSRT_API_thread", KEY_THREAD },
  { "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_KERNEL_stream", KEY_STREAM },
  { "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMCPY_stream", KEY_STREAM },
  { "CUPTI_ACTIVITY_KIND_MEMSET", "CUPTI_ACTIVITY_KIND_MEMSET_stream", KEY_STREAM },
  { "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION_stream", KEY_STREAM },
};

static const char * const key_columns[][2] = {
  [KEY_TRACK_ID] = { "trackId", NULL },
  [KEY_THREAD] = { "globalTid", NULL },
  [KEY_STREAM] = { "deviceId", "streamId" },
};

/* A key of a table and the builder's track its rows go to. */
typedef struct
{
  KeyKind kind;
  gint64  a;
  gint64  b;
  guint32 track;
} Key;

typedef struct
{
  KsSqliteReader *r;
  GArray         *keys;    /* Key, each (kind, a, b) once */
  GHashTable     *seen;    /* a copy of each Key -> its index + 1 in keys */
  guint64        *hints;   /* per builder track */
  guint32         n_tracks;
} Reserve;

static guint
key_hash (gconstpointer p)
{
  const Key *k = p;

  return (guint) k->kind * 31u + g_int64_hash (&k->a) * 17u + g_int64_hash (&k->b);
}

static gboolean
key_equal (gconstpointer pa,
           gconstpointer pb)
{
  const Key *a = pa;
  const Key *b = pb;

  return a->kind == b->kind && a->a == b->a && a->b == b->b;
}

/* Adds a key; one that two tracks share is left with no track. */
static void
add_key (Reserve *res,
         KeyKind  kind,
         gint64   a,
         gint64   b,
         guint32  track)
{
  Key key = { kind, a, b, track };
  guint at = GPOINTER_TO_UINT (g_hash_table_lookup (res->seen, &key));

  if (at != 0)
    {
      Key *old = &g_array_index (res->keys, Key, at - 1);

      if (old->track != track)
        old->track = KS_SQLITE_NONE;
      return;
    }
  g_array_append_val (res->keys, key);
  g_hash_table_insert (res->seen, g_memdup2 (&key, sizeof key), GUINT_TO_POINTER (res->keys->len));
}

/* The keys of the tracks KS_TRACKS made. FALSE: the table cannot be
 * read again (then nothing is reserved). */
static gboolean
collect_keys (Reserve *res)
{
  KsSqliteReader *r = res->r;
  sqlite3_stmt *stmt = NULL;
  gboolean ok;
  int rc;

  if (sqlite3_prepare_v2 (r->db, "SELECT id, kind, globalTid, deviceId, streamId FROM KS_TRACKS", -1, &stmt,
                          NULL) != SQLITE_OK)
    {
      sqlite3_finalize (stmt);
      return FALSE;
    }
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      gint64 id = sqlite3_column_int64 (stmt, 0);
      const char *kind = (const char *) sqlite3_column_text (stmt, 1);
      guint32 track;

      if (id < 0 || id >= r->n_track_map || (track = r->track_map[id]) == KS_SQLITE_NONE || track >= res->n_tracks)
        continue;
      add_key (res, KEY_TRACK_ID, id, 0, track);
      if (kind == NULL)
        continue;
      if (strcmp (kind, "thread") == 0 && sqlite3_column_type (stmt, 2) != SQLITE_NULL)
        add_key (res, KEY_THREAD, sqlite3_column_int64 (stmt, 2), 0, track);
      else if (strcmp (kind, "stream") == 0)
        add_key (res, KEY_STREAM, sqlite3_column_int64 (stmt, 3), sqlite3_column_int64 (stmt, 4), track);
    }
  ok = rc == SQLITE_ROW || rc == SQLITE_DONE;
  sqlite3_finalize (stmt);
  return ok;
}

/* Whether @index is on the key columns of @kind, then start: else the
 * descents below could each scan the table. */
static gboolean
index_fits (KsSqliteReader *r,
            const char     *table,
            const char     *index,
            KeyKind         kind)
{
  g_autofree char *sql = g_strdup_printf ("SELECT name FROM pragma_index_info('%s') "
                                          "WHERE (SELECT tbl_name FROM sqlite_master "
                                          "WHERE type = 'index' AND name = '%s') = '%s' ORDER BY seqno",
                                          index, index, table);
  sqlite3_stmt *stmt = NULL;
  guint n_keys = key_columns[kind][1] != NULL ? 2 : 1;
  guint i = 0;
  gboolean fits = TRUE;

  if (sqlite3_prepare_v2 (r->db, sql, -1, &stmt, NULL) != SQLITE_OK)
    fits = FALSE;
  while (fits && sqlite3_step (stmt) == SQLITE_ROW)
    {
      const char *name = (const char *) sqlite3_column_text (stmt, 0);
      const char *want = i < n_keys ? key_columns[kind][i] : i == n_keys ? "start" : NULL;

      fits = want != NULL && name != NULL && strcmp (name, want) == 0;
      i++;
    }
  sqlite3_finalize (stmt);
  return fits && i == n_keys + 1;
}

static gboolean
step_int (sqlite3_stmt *stmt,
          gint64       *value)
{
  gboolean ok = sqlite3_step (stmt) == SQLITE_ROW && sqlite3_column_type (stmt, 0) == SQLITE_INTEGER;

  if (ok)
    *value = sqlite3_column_int64 (stmt, 0);
  sqlite3_reset (stmt);
  return ok;
}

/* The table's rowids span this many: FALSE when it has none. */
static gboolean
table_span (KsSqliteReader *r,
            const char     *table,
            guint64        *span)
{
  g_autofree char *min_sql = g_strdup_printf ("SELECT min(rowid) FROM \"%s\"", table);
  g_autofree char *max_sql = g_strdup_printf ("SELECT max(rowid) FROM \"%s\"", table);
  sqlite3_stmt *min_stmt = NULL;
  sqlite3_stmt *max_stmt = NULL;
  gint64 first = 0, last = -1;
  gboolean ok;

  /* one aggregate a query: each is one descent */
  ok = sqlite3_prepare_v2 (r->db, min_sql, -1, &min_stmt, NULL) == SQLITE_OK &&
       sqlite3_prepare_v2 (r->db, max_sql, -1, &max_stmt, NULL) == SQLITE_OK &&
       step_int (min_stmt, &first) && step_int (max_stmt, &last) && last >= first;
  sqlite3_finalize (min_stmt);
  sqlite3_finalize (max_stmt);
  if (ok)
    *span = (guint64) last - (guint64) first + 1;
  return ok;
}

/* Adds table @t's counts to the hints, if they hold together; its
 * rowids span @span. */
static void
hint_table (Reserve *res,
            guint    t,
            guint64  span,
            guint64 *room)
{
  KsSqliteReader *r = res->r;
  const char *table = hint_tables[t].table;
  KeyKind kind = hint_tables[t].kind;
  gboolean two = key_columns[kind][1] != NULL;
  g_autofree char *where = two ? g_strdup_printf ("%s = ?1 AND %s = ?2", key_columns[kind][0], key_columns[kind][1])
                               : g_strdup_printf ("%s = ?1", key_columns[kind][0]);
  g_autofree char *first_sql = NULL;
  g_autofree char *last_sql = NULL;
  g_autofree guint64 *counts = NULL;
  sqlite3_stmt *first_stmt = NULL;
  sqlite3_stmt *last_stmt = NULL;
  guint64 most, sum = 0;
  gboolean ok;

  if (!index_fits (r, table, hint_tables[t].index, kind))
    return;

  first_sql = g_strdup_printf ("SELECT rowid FROM \"%s\" INDEXED BY \"%s\" WHERE %s ORDER BY start, rowid LIMIT 1",
                               table, hint_tables[t].index, where);
  last_sql = g_strdup_printf ("SELECT rowid FROM \"%s\" INDEXED BY \"%s\" WHERE %s "
                              "ORDER BY start DESC, rowid DESC LIMIT 1",
                              table, hint_tables[t].index, where);
  ok = sqlite3_prepare_v2 (r->db, first_sql, -1, &first_stmt, NULL) == SQLITE_OK &&
       sqlite3_prepare_v2 (r->db, last_sql, -1, &last_stmt, NULL) == SQLITE_OK;

  counts = g_new0 (guint64, res->keys->len);
  most = MIN (span, *room);
  for (guint i = 0; i < res->keys->len && ok; i++)
    {
      const Key *key = &g_array_index (res->keys, Key, i);
      gint64 first, last;

      if (key->kind != kind || key->track == KS_SQLITE_NONE)
        continue;
      for (guint s = 0; s < 2; s++)
        {
          sqlite3_stmt *stmt = s == 0 ? first_stmt : last_stmt;

          sqlite3_bind_int64 (stmt, 1, key->a);
          if (two)
            sqlite3_bind_int64 (stmt, 2, key->b);
        }
      /* a key with no rows has neither */
      if (!step_int (first_stmt, &first) || !step_int (last_stmt, &last) || last < first)
        continue;
      counts[i] = (guint64) last - (guint64) first + 1;
      /* more rows than the table spans or the file holds: not written
       * track by track, or damaged */
      if (counts[i] > most - sum)
        ok = FALSE;
      else
        sum += counts[i];
    }
  sqlite3_finalize (first_stmt);
  sqlite3_finalize (last_stmt);
  if (!ok)
    return;

  for (guint i = 0; i < res->keys->len; i++)
    if (counts[i] > 0)
      res->hints[g_array_index (res->keys, Key, i).track] += counts[i];
  *room -= sum;
}

void
_ks_sqlite_reserve_tracks (KsSqliteReader *r)
{
  Reserve res = { r };
  guint64 room;

  if (!r->kscope || !r->reserve || r->track_map == NULL)
    return;
  for (guint32 i = 0; i < r->n_track_map; i++)
    if (r->track_map[i] != KS_SQLITE_NONE)
      res.n_tracks = MAX (res.n_tracks, r->track_map[i] + 1);
  if (res.n_tracks == 0)
    return;

  res.keys = g_array_new (FALSE, FALSE, sizeof (Key));
  res.seen = g_hash_table_new_full (key_hash, key_equal, g_free, NULL);
  res.hints = g_new0 (guint64, res.n_tracks);
  room = _ks_sqlite_database_bytes (r) / MIN_ROW_BYTES;

  if (collect_keys (&res))
    {
      guint64 spans[G_N_ELEMENTS (hint_tables)] = { 0 };
      guint64 rows = 0;

      for (guint t = 0; t < G_N_ELEMENTS (hint_tables); t++)
        if (_ks_sqlite_has_table (r, hint_tables[t].table) && table_span (r, hint_tables[t].table, &spans[t]))
          rows += MIN (spans[t], room);
      /* All the tables or none: a track whose count leaves out another
       * table's rows (the CUDA calls among a thread's slices) doubles
       * once it is full, which copies all of it. */
      if (res.keys->len > 0 && rows / res.keys->len >= ROWS_PER_KEY)
        for (guint t = 0; t < G_N_ELEMENTS (hint_tables); t++)
          if (spans[t] > 0)
            hint_table (&res, t, spans[t], &room);
      for (guint32 track = 0; track < res.n_tracks; track++)
        if (res.hints[track] > 0)
          ks_trace_builder_reserve_slices (r->b, track, res.hints[track]);
    }

  g_array_unref (res.keys);
  g_hash_table_unref (res.seen);
  g_free (r->hints);
  r->hints = res.hints;
  r->n_hints = res.n_tracks;
}

void
_ks_sqlite_reserve_report (KsSqliteReader *r)
{
  guint n_sized = 0, n_exact = 0;
  guint64 n_slices = 0;

  if (r->hints == NULL)
    return;
  for (guint32 track = 0; track < r->n_hints; track++)
    if (r->hints[track] > 0)
      {
        n_sized++;
        n_slices += r->hints[track];
        n_exact += r->hints[track] == ks_trace_builder_get_track_n_slices (r->b, track);
      }
  /* for the tests: how well the indexes counted */
  g_debug ("%s: %u tracks sized ahead for %" G_GUINT64_FORMAT " slices, %u of them exactly", r->display, n_sized,
           n_slices, n_exact);
  g_clear_pointer (&r->hints, g_free);
}
