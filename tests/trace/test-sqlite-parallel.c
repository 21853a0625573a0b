/* test-sqlite-parallel.c: a .kscope or an Nsight export read ahead on
 * several threads builds the model that one thread builds
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>
#include <glib/gstdio.h>

#include "ks-args-private.h"
#include "ks-kscope-writer.h"
#include "ks-trace-loader.h"

#include "test-dump.h"
#include "test-sqlite-util.h"

/* Blocks of one rowid (a boundary after every row), a few, and the
 * default; with the arguments numbered in the blocks' dictionaries on
 * the reading threads and stored on a thread of their own, prepared as
 * offsets into their text, or numbered and stored on the loading thread. */
static const char *const block_rows[] = { "1", "7", NULL, NULL };
static const char *const args_ways[] = { "thread", "prepared", "local", "thread" };

static char *tmp_dir;
static guint n_read_ahead;     /* from the reader's debug line of the last load */
static guint n_read_here;
static gboolean saw_debug;
static guint n_readers;        /* reading threads of the last load */
static guint n_again;          /* loads read again on one thread */
static guint64 n_args_thread;  /* arguments stored on their own thread, all loads */
static gboolean saw_args;      /* the arguments' thread of the last load stopped */
static guint64 n_run_slices;   /* slices added in runs, all loads */
static guint64 n_runs;
static KsTrace *last_trace;    /* of the last load_dump() */
static gboolean saw_sized;     /* the last load sized its tracks ahead... */
static guint n_sized;          /* ...this many... */
static guint64 n_sized_slices; /* ...for this many slices... */
static guint n_sized_exact;    /* ...and this many got as many */
static guint64 all_sized;      /* tracks sized, all loads... */
static guint64 all_sized_exact;/* ...and exactly */
static guint64 all_sized_slices;

static void
log_handler (const char     *domain,
             GLogLevelFlags  level,
             const char     *message,
             gpointer        user_data)
{
  const char *p = g_strrstr (message, ": ");

  guint64 n;
  guint sized, exact;

  if (strstr (message, ": read again on one thread: ") != NULL)
    n_again++;
  if (p != NULL && g_str_has_suffix (message, " runs"))
    {
      guint64 slices, runs;

      g_assert_cmpint (sscanf (p + 2, "%" G_GUINT64_FORMAT " slices added in %" G_GUINT64_FORMAT " runs", &slices,
                               &runs), ==, 2);
      /* a run is two slices at least */
      g_assert_cmpuint (slices, >=, 2 * runs);
      n_run_slices += slices;
      n_runs += runs;
    }
  if (p != NULL && sscanf (p + 2, "%u tracks sized ahead for %" G_GUINT64_FORMAT " slices, %u of them exactly",
                           &sized, &n, &exact) == 3)
    {
      g_assert_cmpuint (exact, <=, sized);
      n_sized = sized;
      n_sized_slices = n;
      n_sized_exact = exact;
      saw_sized = TRUE;
      all_sized += n_sized;
      all_sized_exact += n_sized_exact;
      all_sized_slices += n_sized_slices;
    }
  if (sscanf (message, "arguments: %" G_GUINT64_FORMAT " stored on their own thread", &n) == 1)
    {
      n_args_thread += n;
      saw_args = TRUE;
    }
  if (p != NULL && sscanf (p + 2, "%u blocks read ahead on %u threads, %u here", &n_read_ahead, &n_readers,
                           &n_read_here) == 3)
    saw_debug = TRUE;
}

/* The .kscope that @path loads to with @threads threads and blocks of
 * @rows rowids (NULL: the default), or "error: " and the message. */
static GBytes *
load_dump (const char *path,
           const char *threads,
           const char *rows)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;

  saw_debug = saw_sized = FALSE;
  n_read_ahead = n_read_here = n_readers = 0;
  n_sized = n_sized_exact = 0;
  n_sized_slices = 0;
  trace = test_dump_load (path, threads, "KINESCOPE_SQLITE_BLOCK_ROWS", rows, &error);
  g_clear_object (&last_trace);
  last_trace = trace != NULL ? g_object_ref (trace) : NULL;
  return test_dump_bytes (trace, error, tmp_dir);
}

/* A .kscope keeps the arguments' text, so only the model shows the
 * store's order: the same records, dictionary and ids as @serial's,
 * which a string or shape interned out of order changes. */
static void
assert_same_args (const char    *path,
                  const KsTrace *serial,
                  const KsTrace *other)
{
  const KsArgsStore *a = serial->args;
  const KsArgsStore *b = other->args;

  g_assert_true ((a == NULL) == (b == NULL));
  if (a != NULL)
    {
      g_test_message ("%s: %" G_GSIZE_FORMAT " bytes of arguments, %u strings", path, a->len, a->n_entries);
      g_assert_cmpmem (b->data, b->len, a->data, a->len);
      g_assert_cmpmem (b->dict, b->dict_len, a->dict, a->dict_len);
      g_assert_cmpmem (b->entry_end, b->n_entries * sizeof (guint32), a->entry_end, a->n_entries * sizeof (guint32));
    }
  g_assert_cmpuint (other->n_tracks, ==, serial->n_tracks);
  for (guint t = 0; t < serial->n_tracks; t++)
    {
      g_assert_cmpuint (other->tracks[t].n_slices, ==, serial->tracks[t].n_slices);
      g_assert_cmpmem (other->tracks[t].args, other->tracks[t].n_slices * sizeof (guint32),
                       serial->tracks[t].args, serial->tracks[t].n_slices * sizeof (guint32));
    }
  g_assert_cmpuint (other->n_instants, ==, serial->n_instants);
  for (guint i = 0; i < serial->n_instants; i++)
    g_assert_cmpuint (other->instants[i].args, ==, serial->instants[i].args);
}

static void
assert_same_bytes (const char *path,
                   GBytes     *serial,
                   GBytes     *parallel,
                   const char *rows)
{
  g_autofree char *how = g_strdup_printf ("blocks of %s rowids", rows ? rows : "default");

  test_dump_assert_same (path, how, serial, parallel);
}

/* Loads @path on one thread, its slices added one by one, then on one
 * and three threads with every block size, the slices added in runs, and
 * on three one by one: the same dump, byte for byte, or the same error,
 * and the same arguments' ids, which a run added out of order or an
 * argument given to another slice of its run changes. Returns the
 * one-thread dump, and the most blocks that the threads read in
 * @most_ahead. */
static GBytes *
check_same (const char *path,
            guint      *most_ahead)
{
  GBytes *serial;
  g_autoptr(KsTrace) serial_trace = NULL;
  g_autoptr(GBytes) rows = NULL;

  g_setenv ("KINESCOPE_SQLITE_RUNS", "rows", TRUE);
  serial = load_dump (path, "1", NULL);
  serial_trace = g_steal_pointer (&last_trace);
  g_assert_false (saw_debug);
  rows = load_dump (path, "3", NULL);
  g_unsetenv ("KINESCOPE_SQLITE_RUNS");
  assert_same_bytes (path, serial, rows, NULL);
  if (serial_trace != NULL)
    assert_same_args (path, serial_trace, last_trace);

  for (guint i = 0; i < G_N_ELEMENTS (block_rows); i++)
    {
      g_autoptr(GBytes) alone = load_dump (path, "1", block_rows[i]);
      g_autoptr(KsTrace) alone_trace = g_steal_pointer (&last_trace);
      g_autoptr(GBytes) parallel = NULL;

      g_setenv ("KINESCOPE_SQLITE_ARGS", args_ways[i], TRUE);
      parallel = load_dump (path, "3", block_rows[i]);
      g_unsetenv ("KINESCOPE_SQLITE_ARGS");
      g_assert_true (!saw_debug || n_readers == 2);
      assert_same_bytes (path, serial, alone, block_rows[i]);
      assert_same_bytes (path, serial, parallel, block_rows[i]);
      if (serial_trace != NULL)
        {
          assert_same_args (path, serial_trace, alone_trace);
          assert_same_args (path, serial_trace, last_trace);
        }
      if (most_ahead != NULL)
        *most_ahead = MAX (*most_ahead, n_read_ahead);
    }
  return serial;
}

static gboolean
is_kscope (const char *path)
{
  return g_str_has_suffix (path, ".kscope");
}

static gboolean
is_json_gz (const char *path)
{
  return g_str_has_suffix (path, ".json.gz");
}

static gboolean
is_any (const char *path)
{
  return TRUE;
}

static gboolean
is_sqlite (const char *path)
{
  g_autofree char *head = NULL;
  gsize len = 0;

  return g_file_get_contents (path, &head, &len, NULL) && len >= 16 && memcmp (head, "SQLite format 3", 16) == 0;
}

/* @json loaded and saved as a .kscope in the temporary folder. */
static char *
convert (const char *json)
{
  g_autoptr(GFile) file = g_file_new_for_path (json);
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = ks_trace_load (file, NULL, NULL, &error);
  g_autofree char *base = g_path_get_basename (json);
  char *out = g_strdup_printf ("%s/%s.kscope", tmp_dir, base);
  g_autoptr(GFile) out_file = g_file_new_for_path (out);

  g_assert_no_error (error);
  g_unlink (out);
  g_assert_true (ks_kscope_write (trace, out_file, NULL, NULL, &error));
  g_assert_no_error (error);
  return out;
}

/* The recordings of tests/data, and every fixture saved as a .kscope. */
static void
test_fixtures (void)
{
  const char *data = g_getenv ("KS_FIXTURES_DIR");
  g_autoptr(GPtrArray) kscopes = test_dump_list_files (data, FALSE, is_kscope, NULL);
  g_autoptr(GPtrArray) json = test_dump_list_files (data, FALSE, is_json_gz, NULL);
  guint most_ahead = 0;

  g_assert_cmpuint (kscopes->len, ==, 5);
  g_assert_cmpuint (json->len, ==, 12);
  n_args_thread = 0;
  n_run_slices = n_runs = 0;
  all_sized = all_sized_exact = all_sized_slices = 0;
  for (guint i = 0; i < json->len; i++)
    g_ptr_array_add (kscopes, convert (json->pdata[i]));

  for (guint i = 0; i < kscopes->len; i++)
    {
      g_autoptr(GBytes) dump = check_same (kscopes->pdata[i], &most_ahead);

      g_test_message ("%s: %" G_GSIZE_FORMAT " bytes", (char *) kscopes->pdata[i], g_bytes_get_size (dump));
      g_assert_false (test_dump_is_error (dump));
    }
  /* blocks of one row: the threads read thousands */
  g_assert_cmpuint (most_ahead, >, 1000);
  /* and the arguments went through their thread */
  g_assert_cmpuint (n_args_thread, >, 1000);
  /* and most slices were added in runs */
  g_test_message ("%" G_GUINT64_FORMAT " slices added in %" G_GUINT64_FORMAT " runs", n_run_slices, n_runs);
  g_assert_cmpuint (n_run_slices, >, 10000);
  /* and the tracks of the larger files were sized ahead, each for as
   * many slices as it got (the recordings have no KS_TRACKS) */
  g_test_message ("%" G_GUINT64_FORMAT " tracks sized ahead for %" G_GUINT64_FORMAT " slices, %" G_GUINT64_FORMAT
                  " exactly", all_sized, all_sized_slices, all_sized_exact);
  g_assert_cmpuint (all_sized_slices, >, 100000);
  g_assert_cmpuint (all_sized_exact, ==, all_sized);
}

static void
test_fuzz_seeds (void)
{
  g_autofree char *dir = g_build_filename (g_getenv ("KS_FIXTURES_DIR"), "..", "..", "fuzz", "corpus-sqlite", NULL);
  g_autoptr(GPtrArray) files = test_dump_list_files (dir, FALSE, is_any, NULL);

  g_assert_cmpuint (files->len, >=, 9);
  for (guint i = 0; i < files->len; i++)
    g_bytes_unref (check_same (files->pdata[i], NULL));
}

static void
test_corpus (void)
{
  const char *shared = g_getenv ("KS_SHARED_DIR");
  g_autofree char *dir = shared ? g_build_filename (shared, "corpus", NULL) : NULL;
  g_autoptr(GPtrArray) files = NULL;

  if (dir == NULL || !g_file_test (dir, G_FILE_TEST_IS_DIR))
    {
      g_test_skip ("the shared corpus is absent (KS_SHARED_DIR/corpus)");
      return;
    }
  files = test_dump_list_files (dir, TRUE, is_sqlite, NULL);
  g_assert_cmpuint (files->len, >, 0);
  for (guint i = 0; i < files->len; i++)
    g_bytes_unref (check_same (files->pdata[i], NULL));
}

/* A copy of @from changed by @sql. */
static char *
changed_copy (const char *from,
              const char *name,
              const char *sql)
{
  char *path = g_build_filename (tmp_dir, name, NULL);
  sqlite3 *db;

  copy_file (from, path);
  g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);
  exec_sql (db, sql);
  sqlite3_close (db);
  return path;
}

/* Files whose rowids cannot be cut into blocks, and rows too large for
 * one batch: the same model as the file they were made from. */
static void
test_uncut (void)
{
  g_autofree char *json = g_build_filename (g_getenv ("KS_FIXTURES_DIR"), "seed_cnn.pt.trace.json.gz", NULL);
  g_autofree char *kscope = convert (json);
  g_autoptr(GBytes) want = load_dump (kscope, "1", NULL);
  /* rowids far apart: more of them than the file has bytes */
  g_autofree char *sparse = changed_copy (kscope, "sparse.kscope",
                                          "UPDATE KS_SLICES SET rowid = rowid + 4611686018427387904 "
                                          "WHERE rowid > 100");
  /* a column that hides the rowid */
  g_autofree char *hidden = changed_copy (kscope, "hidden.kscope",
                                          "ALTER TABLE KS_SLICES ADD COLUMN rowid INTEGER");
  /* arguments with a NUL inside: they end there */
  g_autofree char *nul = changed_copy (kscope, "nul.kscope",
                                       "UPDATE KS_SLICES SET args = '{\"n\":' || rowid || '}' || char(0) || 'after' "
                                       "WHERE rowid % 5 = 0");
  g_autoptr(GBytes) nul_serial = NULL;
  g_autoptr(GBytes) nul_ahead = NULL;
  g_autofree char *large = NULL;
  g_autoptr(GBytes) large_serial = NULL;
  g_autoptr(GBytes) large_ahead = NULL;
  g_autoptr(GBytes) dump = NULL;

  g_clear_pointer (&dump, g_bytes_unref);
  dump = load_dump (sparse, "3", "7");
  assert_same_bytes (sparse, want, dump, "7");
  g_assert_cmpuint (n_read_ahead + n_read_here, <, 1000);

  g_clear_pointer (&dump, g_bytes_unref);
  dump = load_dump (hidden, "3", "7");
  assert_same_bytes (hidden, want, dump, "7");

  nul_serial = load_dump (nul, "1", NULL);
  g_setenv ("KINESCOPE_SQLITE_ARGS", "thread", TRUE);
  nul_ahead = load_dump (nul, "3", "7");
  assert_same_bytes (nul, nul_serial, nul_ahead, "7");
  g_assert_false (test_dump_is_error (nul_serial));

  /* Rows of 3 MB of arguments: a batch ends at 8 MB and the loading
   * thread reads the rest of its block. */
  large = changed_copy (kscope, "large.kscope",
                        "UPDATE KS_SLICES SET args = '{\"x\": \"' || hex(zeroblob(1500000)) || '\", \"n\": ' || rowid || '}' "
                        "WHERE rowid % 97 = 3 AND rowid < 2000");
  large_serial = load_dump (large, "1", NULL);
  large_ahead = load_dump (large, "3", NULL);
  g_unsetenv ("KINESCOPE_SQLITE_ARGS");
  assert_same_bytes (large, large_serial, large_ahead, "default");
  g_assert_cmpuint (g_bytes_get_size (large_serial), >, g_bytes_get_size (want) + 20 * 3000000);
}

/* The count of @sql's one integer on @path, worked out by SQLite. */
static gint64
count_rows (const char *path,
            const char *sql)
{
  sqlite3 *db;
  sqlite3_stmt *stmt;
  gint64 n;

  g_assert_cmpint (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_prepare_v2 (db, sql, -1, &stmt, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_step (stmt), ==, SQLITE_ROW);
  n = sqlite3_column_int64 (stmt, 0);
  sqlite3_finalize (stmt);
  sqlite3_close (db);
  return n;
}

/* KS_SLICES rows that a run may not take as they come: slices that end
 * before they start (kept as zero-length, counted), rows of a track the
 * file does not define (skipped, counted) and times the builder refuses,
 * among runs of the other rows: the same model as one by one, and the
 * counts SQLite finds. */
static void
test_odd_rows (void)
{
  g_autofree char *json = g_build_filename (g_getenv ("KS_FIXTURES_DIR"), "gpt_3steps.pt.trace.json.gz", NULL);
  g_autofree char *kscope = convert (json);
  g_autofree char *odd = changed_copy (kscope, "odd.kscope",
                                       "UPDATE KS_SLICES SET \"end\" = start - 1000 WHERE rowid % 3 = 1 AND rowid % 4 = 0;"
                                       "UPDATE KS_SLICES SET trackId = 999999 WHERE rowid % 3 = 2 AND rowid % 5 = 0;"
                                       "UPDATE KS_SLICES SET start = 5000000000000000000, \"end\" = 5000000000000000010 "
                                       "WHERE rowid % 3 = 0 AND rowid % 7 = 0;");
  gint64 negative = count_rows (odd, "SELECT count(*) FROM KS_SLICES WHERE \"end\" < start");
  g_autofree char *said = g_strdup_printf ("%" G_GINT64_FORMAT " slices that end before they start were kept as "
                                           "zero-length", negative);
  g_autoptr(GBytes) serial = NULL;
  g_autoptr(KsTrace) serial_trace = NULL;

  g_assert_cmpint (negative, >, 1000);
  g_assert_cmpint (count_rows (odd, "SELECT count(*) FROM KS_SLICES WHERE trackId = 999999"), >, 1000);
  g_setenv ("KINESCOPE_SQLITE_RUNS", "rows", TRUE);
  serial = load_dump (odd, "1", NULL);
  g_unsetenv ("KINESCOPE_SQLITE_RUNS");
  serial_trace = g_steal_pointer (&last_trace);
  g_assert_false (test_dump_is_error (serial));
  g_assert_nonnull (strstr (ks_trace_get_metadata (serial_trace, "warnings"), said));

  for (guint i = 0; i < G_N_ELEMENTS (block_rows); i++)
    for (guint threads = 1; threads <= 3; threads += 2)
      {
        g_autofree char *n = g_strdup_printf ("%u", threads);
        g_autoptr(GBytes) runs = NULL;

        n_run_slices = n_runs = 0;
        g_setenv ("KINESCOPE_SQLITE_ARGS", args_ways[i], TRUE);
        runs = load_dump (odd, n, block_rows[i]);
        g_unsetenv ("KINESCOPE_SQLITE_ARGS");
        assert_same_bytes (odd, serial, runs, block_rows[i]);
        assert_same_args (odd, serial_trace, last_trace);
        g_assert_nonnull (strstr (ks_trace_get_metadata (last_trace, "warnings"), said));
        /* blocks of one row make no runs */
        g_assert_true ((n_run_slices > 1000) == (block_rows[i] == NULL || strcmp (block_rows[i], "1") != 0));
      }
}

/* A block of KS_SLICES' rowids that holds no row (rows deleted): its
 * batch is empty and gathers no run; the same model as one thread. */
static void
test_empty_block (void)
{
  g_autofree char *json = g_build_filename (g_getenv ("KS_FIXTURES_DIR"), "gpt_3steps.pt.trace.json.gz", NULL);
  g_autofree char *kscope = convert (json);
  g_autofree char *holed = changed_copy (kscope, "empty-block.kscope",
                                         "DELETE FROM KS_SLICES WHERE rowid BETWEEN 8 AND 21;");
  g_autoptr(GBytes) serial = NULL;
  g_autoptr(GBytes) parallel = NULL;

  g_setenv ("KINESCOPE_SQLITE_RUNS", "rows", TRUE);
  serial = load_dump (holed, "1", NULL);
  g_unsetenv ("KINESCOPE_SQLITE_RUNS");
  g_assert_false (test_dump_is_error (serial));
  parallel = load_dump (holed, "3", "7");
  assert_same_bytes (holed, serial, parallel, "7");
  g_clear_pointer (&parallel, g_bytes_unref);
  parallel = load_dump (holed, "1", "7");
  assert_same_bytes (holed, serial, parallel, "7");
}

/* StringIds numbered far apart are interned as the rows first name
 * them, so KS_SLICES are taken one by one: the same model as one thread. */
static void
test_sparse_strings (void)
{
  g_autofree char *json = g_build_filename (g_getenv ("KS_FIXTURES_DIR"), "gpt_3steps.pt.trace.json.gz", NULL);
  g_autofree char *kscope = convert (json);
  g_autofree char *sparse = changed_copy (kscope, "sparse-strings.kscope",
                                          "UPDATE StringIds SET id = id * 1000003;"
                                          "UPDATE KS_SLICES SET nameId = nameId * 1000003, "
                                          "categoryId = categoryId * 1000003;");
  g_autoptr(GBytes) serial = NULL;
  g_autoptr(GBytes) parallel = NULL;
  g_autoptr(KsTrace) serial_trace = NULL;

  g_setenv ("KINESCOPE_SQLITE_RUNS", "rows", TRUE);
  serial = load_dump (sparse, "1", NULL);
  g_unsetenv ("KINESCOPE_SQLITE_RUNS");
  serial_trace = g_steal_pointer (&last_trace);
  g_assert_false (test_dump_is_error (serial));
  n_run_slices = n_runs = 0;
  g_setenv ("KINESCOPE_SQLITE_ARGS", "thread", TRUE);
  parallel = load_dump (sparse, "3", "7");
  g_unsetenv ("KINESCOPE_SQLITE_ARGS");
  assert_same_bytes (sparse, serial, parallel, "7");
  assert_same_args (sparse, serial_trace, last_trace);
  g_assert_cmpuint (n_run_slices, ==, 0);
}

/* The size of @path in bytes. */
static gint64
file_bytes (const char *path)
{
  GStatBuf st;

  g_assert_cmpint (g_stat (path, &st), ==, 0);
  return st.st_size;
}

#define LARGEST_TRACK                                                                              \
  "CREATE TEMP TABLE largest AS SELECT trackId AS id FROM KS_SLICES GROUP BY trackId "            \
  "ORDER BY count(*) DESC LIMIT 1;"

/* Tracks sized ahead from counts that the file gets wrong: too few (the
 * largest track's first rows moved to its middle, so that its index
 * starts later), too many (every third row of it deleted: its rowids
 * span more rows than it has), none from an index of other columns, and
 * none from rows not stored track by track (each track's last row moved
 * past the others: their rowids span more than the table, or more than
 * the file could hold). Loaded with the slices one by one, in runs with
 * tracks that double, and sized, on one and three threads: the same
 * model, and never more slices reserved than the file could hold. */
static void
test_sized (void)
{
  static const struct
  {
    const char *name;
    const char *sql;
    gboolean    used;   /* KS_SLICES' counts are used, and one is wrong */
  } cases[] = {
    { "sized-fewer.kscope",
      LARGEST_TRACK
      "CREATE TEMP TABLE middle AS SELECT (min(start) + max(start)) / 2 AS ts FROM KS_SLICES "
      "WHERE trackId = (SELECT id FROM largest);"
      "UPDATE KS_SLICES SET start = (SELECT ts FROM middle), \"end\" = (SELECT ts FROM middle) + 5 "
      "WHERE rowid IN (SELECT rowid FROM KS_SLICES WHERE trackId = (SELECT id FROM largest) ORDER BY rowid LIMIT 10);",
      TRUE },
    { "sized-more.kscope",
      LARGEST_TRACK "DELETE FROM KS_SLICES WHERE trackId = (SELECT id FROM largest) AND rowid % 3 = 0;", TRUE },
    { "sized-index.kscope",
      "DROP INDEX KS_SLICES_track; CREATE INDEX KS_SLICES_track ON KS_SLICES (kind, start);", FALSE },
    /* each track's last row moved past the others: together they
     * span more rows than the table, or alone more than the file holds */
    { "sized-overlapping.kscope",
      "UPDATE KS_SLICES SET rowid = rowid + 100000 WHERE rowid IN (SELECT max(rowid) FROM KS_SLICES GROUP BY trackId);",
      FALSE },
    { "sized-far.kscope",
      "UPDATE KS_SLICES SET rowid = rowid + 1000000000 WHERE rowid IN "
      "(SELECT max(rowid) FROM KS_SLICES GROUP BY trackId);",
      FALSE },
  };
  static const char *const ways[] = { "rows", "runs", NULL };
  g_autofree char *json = g_build_filename (g_getenv ("KS_FIXTURES_DIR"), "gpt_3steps.pt.trace.json.gz", NULL);
  g_autofree char *kscope = convert (json);
  gint64 cuda = count_rows (kscope, "SELECT (SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME) + "
                                    "(SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL) + "
                                    "(SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY) + "
                                    "(SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMSET)");
  g_autoptr(GBytes) plain = load_dump (kscope, "3", NULL);

  /* the file as written: every track sized exactly, for all its rows */
  g_assert_true (saw_sized);
  g_assert_cmpuint (n_sized, ==, n_sized_exact);
  g_assert_cmpint (n_sized_slices, ==, cuda + count_rows (kscope, "SELECT count(*) FROM KS_SLICES"));

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autofree char *path = changed_copy (kscope, cases[c].name, cases[c].sql);
      g_autoptr(GBytes) serial = NULL;
      g_autoptr(KsTrace) serial_trace = NULL;

      g_setenv ("KINESCOPE_SQLITE_RUNS", "rows", TRUE);
      serial = load_dump (path, "1", NULL);
      g_unsetenv ("KINESCOPE_SQLITE_RUNS");
      serial_trace = g_steal_pointer (&last_trace);
      g_assert_false (test_dump_is_error (serial));
      g_assert_false (saw_sized);

      for (guint w = 1; w < G_N_ELEMENTS (ways); w++)
        for (guint threads = 1; threads <= 3; threads += 2)
          for (guint b = 1; b < G_N_ELEMENTS (block_rows); b++)
            {
              g_autofree char *n = g_strdup_printf ("%u", threads);
              g_autoptr(GBytes) dump = NULL;

              if (ways[w] != NULL)
                g_setenv ("KINESCOPE_SQLITE_RUNS", ways[w], TRUE);
              dump = load_dump (path, n, block_rows[b]);
              g_unsetenv ("KINESCOPE_SQLITE_RUNS");
              assert_same_bytes (path, serial, dump, block_rows[b]);
              assert_same_args (path, serial_trace, last_trace);
              /* KINESCOPE_SQLITE_RUNS=runs: the tracks double */
              g_assert_true (saw_sized == (ways[w] == NULL));
              if (!saw_sized)
                continue;
              g_assert_cmpint (n_sized_slices, <=, file_bytes (path) / 16);
              if (cases[c].used)
                g_assert_cmpuint (n_sized_exact, <, n_sized);
              else
                g_assert_cmpint (n_sized_slices, <=, cuda);
            }
    }
}

/* As many reading threads as KINESCOPE_SQLITE_READERS allows, up to one
 * less than the threads; by default up to five, and from eight threads
 * on two less than the threads, up to ten: the same model. */
static void
test_readers (void)
{
  static const struct { const char *threads; const char *readers; guint want; } cases[] = {
    { "8", "1", 1 }, { "8", "7", 7 }, { "3", "7", 2 }, { "7", NULL, 5 }, { "8", NULL, 6 }, { "16", NULL, 10 },
  };
  g_autofree char *json = g_build_filename (g_getenv ("KS_FIXTURES_DIR"), "gpt_3steps.pt.trace.json.gz", NULL);
  g_autofree char *kscope = convert (json);
  g_autoptr(GBytes) serial = load_dump (kscope, "1", NULL);
  g_autoptr(KsTrace) serial_trace = g_steal_pointer (&last_trace);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GBytes) parallel = NULL;

      if (cases[i].readers != NULL)
        g_setenv ("KINESCOPE_SQLITE_READERS", cases[i].readers, TRUE);
      parallel = load_dump (kscope, cases[i].threads, "7");
      g_unsetenv ("KINESCOPE_SQLITE_READERS");
      assert_same_bytes (kscope, serial, parallel, "7");
      assert_same_args (kscope, serial_trace, last_trace);
      g_assert_true (saw_debug);
      g_assert_cmpuint (n_readers, ==, cases[i].want);
    }
}

/* A load cancelled while the slice tables are merged (the reader checks
 * every 16,384 rows: the GPT fixture's 38,194 events) stops with the
 * cancellation, whichever way the arguments go, and is not read again. */
static void
test_cancelled (void)
{
  static const char *const ways[] = { "thread", "local", "prepared" };
  g_autofree char *json = g_build_filename (g_getenv ("KS_FIXTURES_DIR"), "gpt_3steps.pt.trace.json.gz", NULL);
  g_autofree char *kscope = convert (json);
  g_autoptr(GFile) file = g_file_new_for_path (kscope);

  n_again = 0;
  for (guint i = 0; i < G_N_ELEMENTS (ways); i++)
    for (guint threads = 3; threads <= 8; threads += 5)
      {
        g_autoptr(GCancellable) cancellable = g_cancellable_new ();
        g_autoptr(GError) error = NULL;
        g_autoptr(KsTrace) trace = NULL;
        g_autofree char *n = g_strdup_printf ("%u", threads);

        g_cancellable_cancel (cancellable);
        g_setenv ("KINESCOPE_SQLITE_ARGS", ways[i], TRUE);
        g_setenv ("KINESCOPE_THREADS", n, TRUE);
        saw_debug = saw_args = FALSE;
        trace = ks_trace_load (file, NULL, cancellable, &error);
        g_unsetenv ("KINESCOPE_THREADS");
        g_unsetenv ("KINESCOPE_SQLITE_ARGS");
        g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
        g_assert_null (trace);
        /* the threads had started reading, and the arguments' thread
         * was stopped where the merge stopped */
        g_assert_true (saw_debug);
        g_assert_true (saw_args == (i == 0));
      }
  g_assert_cmpuint (n_again, ==, 0);
}

/* A file damaged in its largest table fails the same way on any number
 * of threads, or loads the same. */
static void
test_damaged (void)
{
  g_autofree char *json = g_build_filename (g_getenv ("KS_FIXTURES_DIR"), "gpt_3steps.pt.trace.json.gz", NULL);
  g_autofree char *kscope = convert (json);
  g_autofree char *damaged = g_build_filename (tmp_dir, "damaged.kscope", NULL);
  g_autofree char *contents = NULL;
  gsize size;
  guint errors = 0;

  n_again = 0;
  g_assert_true (g_file_get_contents (kscope, &contents, &size, NULL));
  for (guint k = 1; k <= 5; k++)
    {
      g_autofree char *copy = g_memdup2 (contents, size);
      g_autoptr(GBytes) serial = NULL;
      g_autoptr(GBytes) parallel = NULL;
      gsize at = size / 6 * k;

      /* a page's worth of garbage in the middle of the file */
      for (gsize i = 0; i < 4096 && at + i < size; i++)
        copy[at + i] = (char) (i * 37 + k);
      g_assert_true (g_file_set_contents (damaged, copy, size, NULL));

      serial = load_dump (damaged, "1", NULL);
      g_setenv ("KINESCOPE_SQLITE_ARGS", k % 2 ? "thread" : "local", TRUE);
      parallel = load_dump (damaged, "3", "7");
      g_unsetenv ("KINESCOPE_SQLITE_ARGS");
      assert_same_bytes (damaged, serial, parallel, "7");
      if (test_dump_is_error (serial))
        {
          g_test_message ("%.*s", (int) g_bytes_get_size (serial), (const char *) g_bytes_get_data (serial, NULL));
          g_assert_nonnull (g_strstr_len (g_bytes_get_data (serial, NULL), g_bytes_get_size (serial), "damaged.kscope"));
          errors++;
        }
    }
  g_assert_cmpuint (errors, >, 0);
  /* rows that a search by rowid skips in a damaged page */
  g_assert_cmpuint (n_again, >, 0);
}

int
main (int   argc,
      char *argv[])
{
  int ret;

  g_setenv ("G_MESSAGES_DEBUG", "ks-sqlite-reader", TRUE);
  g_test_init (&argc, &argv, NULL);
  g_log_set_handler ("ks-sqlite-reader", G_LOG_LEVEL_DEBUG, log_handler, NULL);
  tmp_dir = g_dir_make_tmp ("ks-sqlite-parallel-XXXXXX", NULL);

  g_test_add_func ("/sqlite-parallel/fixtures", test_fixtures);
  g_test_add_func ("/sqlite-parallel/fuzz-seeds", test_fuzz_seeds);
  g_test_add_func ("/sqlite-parallel/corpus", test_corpus);
  g_test_add_func ("/sqlite-parallel/uncut", test_uncut);
  g_test_add_func ("/sqlite-parallel/odd-rows", test_odd_rows);
  g_test_add_func ("/sqlite-parallel/empty-block", test_empty_block);
  g_test_add_func ("/sqlite-parallel/sparse-strings", test_sparse_strings);
  g_test_add_func ("/sqlite-parallel/sized", test_sized);
  g_test_add_func ("/sqlite-parallel/readers", test_readers);
  g_test_add_func ("/sqlite-parallel/cancelled", test_cancelled);
  g_test_add_func ("/sqlite-parallel/damaged", test_damaged);

  ret = g_test_run ();

  g_clear_object (&last_trace);
  test_dump_remove_dir (tmp_dir);
  g_free (tmp_dir);
  return ret;
}
