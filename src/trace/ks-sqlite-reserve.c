/* ks-sqlite-reserve.c: each track of a .kscope sized once, ahead
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The builder doubled each track's columns as its slices came, copying
 * them at every step: 13 MB copied by the loading thread for the
 * slices of a 100 MB trace's .kscope, the old and the new columns held
 * while it lasts (callgrind counts 13.7 M instructions, a byte each of
 * the copy's rep movsb, of the 82 M of its own work). A .kscope writes each
 * slice table track by track, every track's rows in the order of their
 * start times, and indexes each table by its track's key and start
 * (KS_SLICES by trackId, the CUDA and OS calls by globalTid, the GPU
 * tables by deviceId and streamId). So two descents of an index, the
 * first and the last entry of a key, give the rowids of a track's first
 * and last row, and the rows between are the track's. Before the slice
 * tables are read, each track is given room for the sum over the tables
 * (ks_trace_builder_reserve_slices()). With reading threads, a thread
 * of its own counts them on a connection of its own while the loading
 * thread reads the strings, processes, threads and tracks: each descent
 * reads index pages nothing else reads (about 26,000 instructions
 * each, 2.6 M for a 100 MB trace's .kscope).
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

#include "ks-sqlite-reader.h"
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

/* A key of a table and the KS_TRACKS id of the track its rows go to. */
typedef struct
{
  KeyKind kind;
  gint64  a;
  gint64  b;
  gint64  id;
  gboolean shared;  /* two tracks have it: no count */
} Key;

/* What the counting found: @n rows for the track of KS_TRACKS.id @id. */
typedef struct
{
  gint64  id;
  guint64 n;
} Count;

typedef struct
{
  sqlite3    *db;
  GArray     *keys;    /* Key, each (kind, a, b) once */
  GHashTable *seen;    /* a copy of each Key -> its index + 1 in keys */
  GArray     *counts;  /* Count */
} Counting;

struct _KsSqliteHints
{
  GThread *thread;
  char    *path;
  GArray  *counts;     /* Count, or NULL: none */
};

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

/* Adds a key; one that two tracks share gives no count. */
static void
add_key (Counting *c,
         KeyKind   kind,
         gint64    a,
         gint64    b,
         gint64    id)
{
  Key key = { kind, a, b, id, FALSE };
  guint at = GPOINTER_TO_UINT (g_hash_table_lookup (c->seen, &key));

  if (at != 0)
    {
      Key *old = &g_array_index (c->keys, Key, at - 1);

      old->shared = old->shared || old->id != id;
      return;
    }
  g_array_append_val (c->keys, key);
  g_hash_table_insert (c->seen, g_memdup2 (&key, sizeof key), GUINT_TO_POINTER (c->keys->len));
}

/* The keys of KS_TRACKS' rows. FALSE: the table cannot be read. */
static gboolean
collect_keys (Counting *c)
{
  sqlite3_stmt *stmt = NULL;
  gboolean ok;
  int rc;

  if (sqlite3_prepare_v2 (c->db, "SELECT id, kind, globalTid, deviceId, streamId FROM KS_TRACKS", -1, &stmt,
                          NULL) != SQLITE_OK)
    {
      sqlite3_finalize (stmt);
      return FALSE;
    }
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      gint64 id = sqlite3_column_int64 (stmt, 0);
      const char *kind = (const char *) sqlite3_column_text (stmt, 1);

      add_key (c, KEY_TRACK_ID, id, 0, id);
      if (kind == NULL)
        continue;
      if (strcmp (kind, "thread") == 0 && sqlite3_column_type (stmt, 2) != SQLITE_NULL)
        add_key (c, KEY_THREAD, sqlite3_column_int64 (stmt, 2), 0, id);
      else if (strcmp (kind, "stream") == 0)
        add_key (c, KEY_STREAM, sqlite3_column_int64 (stmt, 3), sqlite3_column_int64 (stmt, 4), id);
    }
  ok = rc == SQLITE_ROW || rc == SQLITE_DONE;
  sqlite3_finalize (stmt);
  return ok;
}

/* Which tables' indexes are on their key columns, then start: else the
 * descents below could each scan the table. One query for them all
 * (preparing a statement costs about as much as a descent). */
static void
indexes_fit (sqlite3  *db,
             gboolean  fits[G_N_ELEMENTS (hint_tables)])
{
  sqlite3_stmt *stmt = NULL;
  guint seen[G_N_ELEMENTS (hint_tables)] = { 0 };
  GString *sql = g_string_new ("SELECT m.name, m.tbl_name, i.seqno, i.name FROM sqlite_master AS m, "
                               "pragma_index_info(m.name) AS i WHERE m.type = 'index' AND m.name IN (");

  for (guint t = 0; t < G_N_ELEMENTS (hint_tables); t++)
    {
      g_string_append_printf (sql, "%s'%s'", t > 0 ? ", " : "", hint_tables[t].index);
      fits[t] = TRUE;
    }
  g_string_append (sql, ")");
  if (sqlite3_prepare_v2 (db, sql->str, -1, &stmt, NULL) != SQLITE_OK)
    memset (fits, 0, sizeof (gboolean) * G_N_ELEMENTS (hint_tables));
  while (stmt != NULL && sqlite3_step (stmt) == SQLITE_ROW)
    {
      const char *index = (const char *) sqlite3_column_text (stmt, 0);
      const char *table = (const char *) sqlite3_column_text (stmt, 1);
      gint64 seqno = sqlite3_column_int64 (stmt, 2);
      const char *column = (const char *) sqlite3_column_text (stmt, 3);

      for (guint t = 0; t < G_N_ELEMENTS (hint_tables); t++)
        if (index != NULL && strcmp (index, hint_tables[t].index) == 0)
          {
            KeyKind kind = hint_tables[t].kind;
            guint n_keys = key_columns[kind][1] != NULL ? 2 : 1;
            const char *want = seqno >= 0 && seqno < n_keys ? key_columns[kind][seqno] : seqno == n_keys ? "start" : NULL;

            fits[t] = fits[t] && table != NULL && strcmp (table, hint_tables[t].table) == 0 && want != NULL &&
                      column != NULL && strcmp (column, want) == 0;
            seen[t]++;
          }
    }
  sqlite3_finalize (stmt);
  g_string_free (sql, TRUE);
  for (guint t = 0; t < G_N_ELEMENTS (hint_tables); t++)
    fits[t] = fits[t] && seen[t] == (key_columns[hint_tables[t].kind][1] != NULL ? 3 : 2);
}

/* Steps @stmt to its row of two integers: FALSE when it has none, or
 * either is not an integer. */
static gboolean
step_pair (sqlite3_stmt *stmt,
           gint64       *a,
           gint64       *b)
{
  gboolean ok = sqlite3_step (stmt) == SQLITE_ROW && sqlite3_column_type (stmt, 0) == SQLITE_INTEGER &&
                sqlite3_column_type (stmt, 1) == SQLITE_INTEGER;

  if (ok)
    {
      *a = sqlite3_column_int64 (stmt, 0);
      *b = sqlite3_column_int64 (stmt, 1);
    }
  sqlite3_reset (stmt);
  return ok;
}

/* The table's rowids span this many: FALSE when it has none. */
static gboolean
table_span (sqlite3    *db,
            const char *table,
            guint64    *span)
{
  /* one aggregate a subquery: each is one descent */
  g_autofree char *sql = g_strdup_printf ("SELECT (SELECT min(rowid) FROM \"%s\"), (SELECT max(rowid) FROM \"%s\")",
                                          table, table);
  sqlite3_stmt *stmt = NULL;
  gint64 first = 0, last = -1;
  gboolean ok;

  ok = sqlite3_prepare_v2 (db, sql, -1, &stmt, NULL) == SQLITE_OK && step_pair (stmt, &first, &last) &&
       last >= first;
  sqlite3_finalize (stmt);
  if (ok)
    *span = (guint64) last - (guint64) first + 1;
  return ok;
}

/* Adds table @t's counts, if they hold together; its rowids span @span. */
static void
count_table (Counting *c,
             guint     t,
             guint64   span,
             guint64  *room)
{
  const char *table = hint_tables[t].table;
  KeyKind kind = hint_tables[t].kind;
  gboolean two = key_columns[kind][1] != NULL;
  g_autofree char *where = two ? g_strdup_printf ("%s = ?1 AND %s = ?2", key_columns[kind][0], key_columns[kind][1])
                               : g_strdup_printf ("%s = ?1", key_columns[kind][0]);
  /* a key's first row and last, in the index's order */
  g_autofree char *sql = g_strdup_printf ("SELECT (SELECT rowid FROM \"%s\" INDEXED BY \"%s\" WHERE %s "
                                          "ORDER BY start, rowid LIMIT 1), "
                                          "(SELECT rowid FROM \"%s\" INDEXED BY \"%s\" WHERE %s "
                                          "ORDER BY start DESC, rowid DESC LIMIT 1)",
                                          table, hint_tables[t].index, where, table, hint_tables[t].index, where);
  g_autofree guint64 *counts = NULL;
  sqlite3_stmt *stmt = NULL;
  guint64 most, sum = 0;
  gboolean ok;

  ok = sqlite3_prepare_v2 (c->db, sql, -1, &stmt, NULL) == SQLITE_OK;

  counts = g_new0 (guint64, c->keys->len);
  most = MIN (span, *room);
  for (guint i = 0; i < c->keys->len && ok; i++)
    {
      const Key *key = &g_array_index (c->keys, Key, i);
      gint64 first, last;

      if (key->kind != kind || key->shared)
        continue;
      sqlite3_bind_int64 (stmt, 1, key->a);
      if (two)
        sqlite3_bind_int64 (stmt, 2, key->b);
      /* a key with no rows has neither */
      if (!step_pair (stmt, &first, &last) || last < first)
        continue;
      counts[i] = (guint64) last - (guint64) first + 1;
      /* more rows than the table spans or the file holds: not written
       * track by track, or damaged */
      if (counts[i] > most - sum)
        ok = FALSE;
      else
        sum += counts[i];
    }
  sqlite3_finalize (stmt);
  if (!ok)
    return;

  for (guint i = 0; i < c->keys->len; i++)
    if (counts[i] > 0)
      {
        Count count = { g_array_index (c->keys, Key, i).id, counts[i] };

        g_array_append_val (c->counts, count);
      }
  *room -= sum;
}

static guint64
database_bytes (sqlite3 *db)
{
  sqlite3_stmt *stmt = NULL;
  guint64 bytes = 0;

  if (sqlite3_prepare_v2 (db, "SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()", -1,
                          &stmt, NULL) == SQLITE_OK &&
      sqlite3_step (stmt) == SQLITE_ROW)
    bytes = (guint64) MAX (sqlite3_column_int64 (stmt, 0), 0);
  sqlite3_finalize (stmt);
  return bytes;
}

/* KINESCOPE_SQLITE_ROWS_PER_KEY: small values are for the fuzzers and
 * tests, so that small files are counted too. */
static guint64
rows_per_key (void)
{
  const char *env = g_getenv ("KINESCOPE_SQLITE_ROWS_PER_KEY");
  guint64 v;

  if (env != NULL && g_ascii_string_to_unsigned (env, 10, 1, 1 << 20, &v, NULL))
    return v;
  return ROWS_PER_KEY;
}

/* The rows of each track of @db's KS_TRACKS in the slice tables, as
 * far as the indexes tell: Count by KS_TRACKS.id (an id may come more
 * than once), or NULL. */
static GArray *
count_tracks (sqlite3 *db)
{
  Counting c = { db };
  guint64 spans[G_N_ELEMENTS (hint_tables)] = { 0 };
  gboolean fits[G_N_ELEMENTS (hint_tables)];
  guint64 room = database_bytes (db) / MIN_ROW_BYTES;
  guint64 rows = 0;

  c.keys = g_array_new (FALSE, FALSE, sizeof (Key));
  c.seen = g_hash_table_new_full (key_hash, key_equal, g_free, NULL);
  c.counts = g_array_new (FALSE, FALSE, sizeof (Count));

  if (collect_keys (&c) && c.keys->len > 0)
    {
      indexes_fit (db, fits);
      for (guint t = 0; t < G_N_ELEMENTS (hint_tables); t++)
        if (fits[t] && table_span (db, hint_tables[t].table, &spans[t]))
          rows += MIN (spans[t], room);
      /* All the tables or none: a track whose count leaves out another
       * table's rows (the CUDA calls among a thread's slices) doubles
       * once it is full, which copies all of it. */
      if (rows / c.keys->len >= rows_per_key ())
        for (guint t = 0; t < G_N_ELEMENTS (hint_tables); t++)
          if (spans[t] > 0)
            count_table (&c, t, spans[t], &room);
    }

  g_array_unref (c.keys);
  g_hash_table_unref (c.seen);
  return c.counts;
}

static gpointer
hints_thread (gpointer data)
{
  KsSqliteHints *h = data;
  sqlite3 *db = NULL;

  if (ks_sqlite_open_untrusted (h->path, &db) == SQLITE_OK)
    h->counts = count_tracks (db);
  sqlite3_close (db);
  return NULL;
}

KsSqliteHints *
_ks_sqlite_hints_start (const char *path)
{
  KsSqliteHints *h = g_new0 (KsSqliteHints, 1);

  h->path = g_strdup (path);
  /* no thread: the loading thread counts them itself */
  h->thread = g_thread_try_new ("ks-sqlite-hints", hints_thread, h, NULL);
  return h;
}

static void
hints_join (KsSqliteHints *h)
{
  if (h->thread != NULL)
    g_thread_join (g_steal_pointer (&h->thread));
}

void
_ks_sqlite_hints_free (KsSqliteHints *h)
{
  if (h == NULL)
    return;
  hints_join (h);
  g_clear_pointer (&h->counts, g_array_unref);
  g_free (h->path);
  g_free (h);
}

void
_ks_sqlite_reserve_tracks (KsSqliteReader *r)
{
  g_autoptr(GArray) counts = NULL;
  guint32 n_tracks = 0;

  if (!r->kscope || !r->reserve || r->track_map == NULL)
    return;
  if (r->hints_job != NULL && r->hints_job->thread != NULL)
    {
      hints_join (r->hints_job);
      counts = g_steal_pointer (&r->hints_job->counts);
    }
  else
    counts = count_tracks (r->db);
  if (counts == NULL)
    return;

  for (guint32 i = 0; i < r->n_track_map; i++)
    if (r->track_map[i] != KS_SQLITE_NONE)
      n_tracks = MAX (n_tracks, r->track_map[i] + 1);
  g_free (r->hints);
  r->hints = g_new0 (guint64, n_tracks);
  r->n_hints = n_tracks;
  for (guint i = 0; i < counts->len; i++)
    {
      const Count *count = &g_array_index (counts, Count, i);

      /* sums bounded by the file's size, as each table's counts are */
      if (count->id >= 0 && count->id < r->n_track_map && r->track_map[count->id] != KS_SQLITE_NONE)
        r->hints[r->track_map[count->id]] += count->n;
    }
  for (guint32 track = 0; track < n_tracks; track++)
    if (r->hints[track] > 0)
      ks_trace_builder_reserve_slices (r->b, track, r->hints[track]);
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
