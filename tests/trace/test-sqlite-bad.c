/* test-sqlite-bad.c: damaged, truncated and foreign SQLite files; cancelling and progress
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <sqlite3.h>
#include <string.h>
#include <glib/gstdio.h>

#include "ks-json-reader.h"
#include "ks-kscope-writer.h"
#include "ks-sqlite-reader.h"

#include "test-sqlite-util.h"
#include "test-sqlite-files.h"

static void
assert_bad (const char *path,
            GIOErrorEnum code,
            const char  *what)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = load (path, &error);
  g_autofree char *base = g_path_get_basename (path);

  g_assert_null (trace);
  g_assert_error (error, G_IO_ERROR, code);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, base));
  if (what != NULL)
    g_assert_nonnull (strstr (error->message, what));
}

static char *
copy_with (const char *src,
           const char *name,
           gsize       offset,
           gsize       len,
           gssize      truncate_to)
{
  g_autofree char *contents = NULL;
  gsize size;
  char *path = temp_path (name);

  g_assert_true (g_file_get_contents (src, &contents, &size, NULL));
  if (len > 0)
    {
      g_assert_cmpuint (offset + len, <=, size);
      for (gsize i = 0; i < len; i++)
        contents[offset + i] = (char)(0xA5 ^ (i * 31));
    }
  if (truncate_to >= 0)
    size = truncate_to;
  g_assert_true (g_file_set_contents (path, contents, size, NULL));
  return path;
}

static gint64
root_page (const char *path,
           const char *table)
{
  sqlite3 *db = NULL;
  sqlite3_stmt *stmt = NULL;
  gint64 page = -1;

  g_assert_cmpint (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_prepare_v2 (db, "SELECT rootpage FROM sqlite_master WHERE name = ?", -1, &stmt, NULL), ==, SQLITE_OK);
  sqlite3_bind_text (stmt, 1, table, -1, SQLITE_STATIC);
  if (sqlite3_step (stmt) == SQLITE_ROW)
    page = sqlite3_column_int64 (stmt, 0);
  sqlite3_finalize (stmt);
  sqlite3_close (db);
  return page;
}

static void
test_bad_corrupt (void)
{
  g_autofree char *src = cloverleaf_path ();
  g_autofree char *middle = NULL;
  g_autofree char *page = NULL;
  gsize size;
  gint64 root;
  g_autofree char *contents = NULL;

  if (src == NULL)
    {
      g_test_skip ("the Nsight export of the corpus (KS_SHARED_DIR) is absent");
      return;
    }
  g_assert_true (g_file_get_contents (src, &contents, &size, NULL));

  /* 64 KiB overwritten in the middle of the file. */
  middle = copy_with (src, "middle.sqlite", size / 2 - 32768, 65536, -1);
  assert_bad (middle, G_IO_ERROR_INVALID_DATA, NULL);

  /* The root page of the kernel table: schema intact, data damaged. */
  root = root_page (src, "CUPTI_ACTIVITY_KIND_KERNEL");
  g_assert_cmpint (root, >, 1);
  page = copy_with (src, "kernel-page.sqlite", (root - 1) * 4096, 4096, -1);
  assert_bad (page, G_IO_ERROR_INVALID_DATA, "damaged");

  remove_path (middle);
  remove_path (page);
}

static void
test_bad_truncated (void)
{
  g_autofree char *src = cloverleaf_path ();
  g_autofree char *half = NULL;
  g_autofree char *header = NULL;
  g_autofree char *kscope = NULL;
  g_autofree char *kscope_half = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(GFile) out = NULL;
  gsize size;
  g_autofree char *contents = NULL;

  if (src == NULL)
    {
      g_test_skip ("the Nsight export of the corpus (KS_SHARED_DIR) is absent");
      return;
    }
  g_assert_true (g_file_get_contents (src, &contents, &size, NULL));

  half = copy_with (src, "half.sqlite", 0, 0, size / 2);
  assert_bad (half, G_IO_ERROR_INVALID_DATA, NULL);
  header = copy_with (src, "header.sqlite", 0, 0, 60);
  assert_bad (header, G_IO_ERROR_INVALID_DATA, NULL);

  /* Our own files too. */
  trace = load (src, &error);
  g_assert_no_error (error);
  kscope = temp_path ("full.kscope");
  out = g_file_new_for_path (kscope);
  g_assert_true (ks_kscope_write (trace, out, NULL, NULL, &error));
  g_assert_no_error (error);
  g_clear_pointer (&contents, g_free);
  g_assert_true (g_file_get_contents (kscope, &contents, &size, NULL));
  kscope_half = copy_with (kscope, "half.kscope", 0, 0, size / 2);
  assert_bad (kscope_half, G_IO_ERROR_INVALID_DATA, NULL);

  remove_path (half);
  remove_path (header);
  remove_path (kscope);
  remove_path (kscope_half);
}

static void
test_bad_not_trace (void)
{
  g_autofree char *path = temp_path ("notes.sqlite");
  g_autofree char *path2 = temp_path ("strings-only.sqlite");
  sqlite3 *db = NULL;

  g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);
  exec_sql (db, "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes VALUES (1, 'hello');");
  sqlite3_close (db);
  assert_bad (path, G_IO_ERROR_INVALID_DATA, "StringIds");

  g_assert_cmpint (sqlite3_open (path2, &db), ==, SQLITE_OK);
  exec_sql (db, "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
                "CREATE VIEW NVTX_EVENTS AS SELECT 1;");
  sqlite3_close (db);
  assert_bad (path2, G_IO_ERROR_INVALID_DATA, "CUPTI_ACTIVITY_KIND_");

  remove_path (path);
  remove_path (path2);
}

static void
test_bad_files (void)
{
  g_autofree char *text = temp_path ("notes.kscope");
  g_autofree char *empty = temp_path ("empty.kscope");
  g_autofree char *missing = temp_path ("missing.kscope");
  g_autofree char *dir = g_path_get_dirname (missing);

  g_assert_true (g_file_set_contents (text, "This is a text file, not a trace.\n", -1, NULL));
  assert_bad (text, G_IO_ERROR_INVALID_DATA, "not a SQLite database");

  g_assert_true (g_file_set_contents (empty, "", 0, NULL));
  assert_bad (empty, G_IO_ERROR_INVALID_DATA, "empty");

  assert_bad (missing, G_IO_ERROR_NOT_FOUND, NULL);
  assert_bad (dir, G_IO_ERROR_IS_DIRECTORY, NULL);

  remove_path (text);
  remove_path (empty);
  g_rmdir (dir);
}

/* A .kscope from someone else: hostile ids and references must give
 * warnings or errors, never a crash or a huge allocation. */
static void
test_bad_references (void)
{
  g_autofree char *path = temp_path ("odd.kscope");
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  sqlite3 *db = NULL;

  g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);
  exec_sql (db,
            "PRAGMA application_id = 1263747919; PRAGMA user_version = 7;"
            "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
            "INSERT INTO StringIds VALUES (1, 'a'), (9000000000000, 'far away');"
            "CREATE TABLE KS_TRACKS (id INTEGER PRIMARY KEY, kind TEXT NOT NULL, name TEXT, globalPid INTEGER,"
            " globalTid INTEGER, deviceId INTEGER, streamId INTEGER, sortIndex INTEGER, parentId INTEGER, groupId INTEGER);"
            "INSERT INTO KS_TRACKS VALUES (0, 'thread', NULL, 16777216, 16777217, NULL, NULL, 0, NULL, 0),"
            " (1, 'martian', NULL, NULL, NULL, NULL, NULL, 0, NULL, 0), (4000000000, 'stream', NULL, NULL, NULL, 0, 7, 0, NULL, 0);"
            "CREATE TABLE KS_SLICES (start INTEGER, end INTEGER, globalTid INTEGER, trackId INTEGER, kind INTEGER,"
            " nameId INTEGER, categoryId INTEGER, correlationId INTEGER, externalId INTEGER, args TEXT);"
            "INSERT INTO KS_SLICES VALUES (10, 5, NULL, 0, 99, 1, 9000000000000, NULL, NULL, '{}'),"
            " (9223372036854775807, -9223372036854775808, NULL, 0, 1, 424242, NULL, NULL, NULL, NULL),"
            " (20, 30, NULL, 77, 1, 1, NULL, NULL, NULL, NULL),"
            " (40, 50, 16777218, NULL, 1, 1, NULL, NULL, NULL, NULL);"
            "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER, streamId INTEGER,"
            " globalPid INTEGER, demangledName TEXT);"
            "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 2, 9999999999, 'seven', NULL, 'not an id');"
            /* a rowid that promises far more rows than the file holds */
            "CREATE TABLE KS_MEMORY_EVENTS (timestamp INTEGER NOT NULL, globalTid INTEGER, deviceId INTEGER,"
            " address INTEGER, bytes INTEGER, totalAllocated INTEGER, totalReserved INTEGER);"
            "INSERT INTO KS_MEMORY_EVENTS (rowid, timestamp, deviceId, address, bytes)"
            " VALUES (2000000000, 15, 0, 4096, 512);");
  sqlite3_close (db);

  trace = load (path, &error);
  g_assert_no_error (error);
  g_assert_cmpint (trace->format, ==, KS_FORMAT_KSCOPE);
  g_assert_nonnull (strstr (ks_trace_get_metadata (trace, "warnings"), "newer format"));
  g_assert_nonnull (strstr (ks_trace_get_metadata (trace, "warnings"), "skipped"));
  g_assert_nonnull (strstr (ks_trace_get_metadata (trace, "warnings"), "StringIds"));
  g_assert_nonnull (strstr (ks_trace_get_metadata (trace, "warnings"), "1 event with an impossible time"));
  /* The saved thread track, the thread a row names by globalTid only,
   * and the one stream the kernel row names; the slice at the end of
   * time is left out. */
  g_assert_cmpuint (trace->n_tracks, ==, 3);
  g_assert_cmpuint (trace->tracks[0].n_slices, ==, 1);
  g_assert_cmpstr (ks_trace_string (trace, trace->tracks[0].category[0]), ==, "far away");
  g_assert_cmpuint (trace->tracks[1].kind, ==, KS_TRACK_THREAD);
  g_assert_cmpint (trace->threads[trace->tracks[1].thread].tid, ==, 2);
  g_assert_cmpuint (trace->tracks[1].n_slices, ==, 1);
  g_assert_cmpuint (trace->tracks[2].kind, ==, KS_TRACK_STREAM);
  g_assert_cmpuint (trace->tracks[2].n_slices, ==, 1);
  g_assert_cmpuint (trace->n_memory_events, ==, 1);
  g_assert_cmpint (trace->memory_events[0].bytes, ==, 512);

  remove_path (path);
}

/* An export whose StringIds lacks a column (found by fuzz-sqlite-reader):
 * the table is skipped with a warning and the rows load without names;
 * it used to fail without an error, and the CLI crashed on it. */
static void
test_bad_string_table (void)
{
  g_autofree char *path = temp_path ("no-value.sqlite");
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  KsTraceCounts counts;
  sqlite3 *db = NULL;

  g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);
  exec_sql (db,
            "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, text TEXT);"
            "INSERT INTO StringIds VALUES (1, 'cudaLaunchKernel_v7000');"
            "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL,"
            " eventClass INTEGER, globalTid INTEGER, correlationId INTEGER, nameId INTEGER, returnValue INTEGER);"
            "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (1000, 1100, 0, 1677721700, 1, 1, 0),"
            " (1200, 1300, 0, 1677721700, 2, 1, 0);");
  sqlite3_close (db);

  trace = load (path, &error);
  g_assert_no_error (error);
  g_assert_cmpint (trace->format, ==, KS_FORMAT_NSYS_SQLITE);
  g_assert_nonnull (strstr (ks_trace_get_metadata (trace, "warnings"), "Table StringIds has no column value"));
  g_assert_nonnull (strstr (ks_trace_get_metadata (trace, "warnings"), "missing StringIds rows"));
  ks_trace_get_counts (trace, &counts);
  g_assert_cmpuint (counts.by_kind[KS_SLICE_CUDA_RUNTIME], ==, 2);

  remove_path (path);
}

static void
test_cancel (void)
{
  g_autofree char *path = cloverleaf_path ();
  g_autoptr(GFile) file = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;

  if (path == NULL)
    {
      g_test_skip ("the Nsight export of the corpus (KS_SHARED_DIR) is absent");
      return;
    }

  file = g_file_new_for_path (path);
  g_cancellable_cancel (cancellable);
  trace = ks_sqlite_reader_load (file, NULL, cancellable, &error);
  g_assert_null (trace);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}

/* Random damage anywhere in a .kscope: a trace or an error naming the
 * file, never a crash. Seeded, so a failure repeats. */
static void
test_bad_random_damage (void)
{
  g_autofree char *src = cloverleaf_path ();
  g_autofree char *kscope = NULL;
  g_autofree char *contents = NULL;
  g_autofree char *damaged = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(GFile) out = NULL;
  g_autoptr(GRand) rand = g_rand_new_with_seed (20261129);
  gsize size;
  guint loaded = 0, refused = 0;

  if (src == NULL)
    {
      g_test_skip ("the Nsight export of the corpus (KS_SHARED_DIR) is absent");
      return;
    }

  trace = load (src, &error);
  g_assert_no_error (error);
  kscope = temp_path ("source.kscope");
  out = g_file_new_for_path (kscope);
  g_assert_true (ks_kscope_write (trace, out, NULL, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (kscope, &contents, &size, NULL));
  damaged = temp_path ("damaged.kscope");

  for (guint round = 0; round < 120; round++)
    {
      g_autofree char *copy = g_memdup2 (contents, size);
      g_autoptr(GError) local_error = NULL;
      g_autoptr(KsTrace) result = NULL;
      guint n = 1 + g_rand_int_range (rand, 0, 64);

      for (guint i = 0; i < n; i++)
        copy[g_rand_int_range (rand, 0, size)] = (char)g_rand_int_range (rand, 0, 256);
      g_assert_true (g_file_set_contents (damaged, copy, size, NULL));

      result = load (damaged, &local_error);
      if (result != NULL)
        {
          g_assert_no_error (local_error);
          loaded++;
        }
      else
        {
          g_assert_nonnull (local_error);
          g_assert_nonnull (strstr (local_error->message, "damaged.kscope"));
          refused++;
        }
    }

  g_test_message ("%u damaged copies loaded, %u refused", loaded, refused);
  g_assert_cmpuint (loaded + refused, ==, 120);
  g_assert_cmpuint (refused, >, 0);

  remove_path (kscope);
  remove_path (damaged);
}

typedef struct
{
  GArray       *fractions;
  GCancellable *cancel_at_first;
} ProgressLog;

static void
progress_changed (KsProgress *progress,
                  gpointer    user_data)
{
  ProgressLog *log = user_data;
  double f = ks_progress_get_fraction (progress);

  g_array_append_val (log->fractions, f);
  if (log->cancel_at_first != NULL && f > 0.0 && f < 0.9)
    g_cancellable_cancel (log->cancel_at_first);
}

/* Progress moves forward while rows are read, and a cancellation in the
 * middle stops the load. */
static void
test_progress_and_cancel (void)
{
  g_autofree char *json = g_build_filename (g_getenv ("KS_FIXTURES_DIR"), "gpt_3steps.pt.trace.json.gz", NULL);
  g_autofree char *path = temp_path ("progress.kscope");
  g_autoptr(GFile) in = g_file_new_for_path (json);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = ks_json_reader_load (in, NULL, NULL, &error);
  g_autoptr(KsTrace) back = NULL;
  g_autoptr(KsProgress) progress = ks_progress_new ();
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  ProgressLog log = { g_array_new (FALSE, FALSE, sizeof (double)), NULL };
  guint between = 0;

  g_assert_no_error (error);
  g_assert_true (ks_kscope_write (trace, file, NULL, NULL, &error));
  g_assert_no_error (error);

  ks_progress_set_notify (progress, progress_changed, &log, NULL);
  back = ks_sqlite_reader_load (file, progress, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (back);
  for (guint i = 1; i < log.fractions->len; i++)
    {
      double f = g_array_index (log.fractions, double, i);

      g_assert_cmpfloat (f, >=, g_array_index (log.fractions, double, i - 1));
      if (f > 0.0 && f < 0.9)
        between++;
    }
  g_assert_cmpuint (between, >, 0);
  g_assert_cmpfloat (g_array_index (log.fractions, double, log.fractions->len - 1), ==, 1.0);
  g_clear_object (&back);

  log.cancel_at_first = cancellable;
  back = ks_sqlite_reader_load (file, progress, cancellable, &error);
  g_assert_null (back);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);

  g_array_unref (log.fractions);
  remove_path (path);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/sqlite/bad/corrupt", test_bad_corrupt);
  g_test_add_func ("/sqlite/bad/truncated", test_bad_truncated);
  g_test_add_func ("/sqlite/bad/not-a-trace", test_bad_not_trace);
  g_test_add_func ("/sqlite/bad/files", test_bad_files);
  g_test_add_func ("/sqlite/bad/references", test_bad_references);
  g_test_add_func ("/sqlite/bad/string-table", test_bad_string_table);
  g_test_add_func ("/sqlite/bad/random-damage", test_bad_random_damage);
  g_test_add_func ("/sqlite/cancel", test_cancel);
  g_test_add_func ("/sqlite/progress", test_progress_and_cancel);

  return g_test_run ();
}
