/* test-kscope-reader.c: .kscope files from the recorder and the writer: schema, journals, files cut short
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <sqlite3.h>
#include <string.h>
#include <glib/gstdio.h>

#include "ks-kscope-schema.h"
#include "ks-kscope-writer.h"
#include "ks-record-writer.h"
#include "ks-sqlite-reader.h"
#include "ks-trace-loader.h"

#include "test-sqlite-util.h"
#include "test-sqlite-files.h"

/* What kinescope-cli record writes opens here: CUPTI's memory kinds as
 * Nsight numbers them, API names with Nsight's suffix, context-wide syncs
 * on stream -1. */
static void
test_recorder_file (void)
{
  g_autofree char *path = temp_path ("run.kscope");
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  KsRecordWriter *w;
  KsWireKernel k = { 0 };
  KsWireMemcpy m = { 0 };
  KsWireApi a = { 0 };
  KsWireSync sy = { 0 };
  KsTraceCounts counts;
  const KsTrack *stream;

  w = ks_record_writer_new (path, 1000000, G_GINT64_CONSTANT (1700000000000000000), &error);
  g_assert_no_error (error);
  ks_record_writer_add_process (w, 4242, "python3");
  ks_record_writer_add_thread (w, 4242, 4242, "python3", "main");

  a.start = 1000100; a.end = 1000200; a.tid = 4242; a.correlation_id = 7;
  a.event_class = 0;
  ks_record_writer_add_api (w, 4242, &a, ks_record_writer_intern (w, "cudaLaunchKernel_v7000"));
  a.start = 1000300; a.end = 1000400; a.correlation_id = 8;
  ks_record_writer_add_api (w, 4242, &a, ks_record_writer_intern (w, "cudaMemcpyAsync_v3020"));

  k.start = 1000250; k.end = 1000500; k.device_id = 0; k.stream_id = 7; k.correlation_id = 7;
  k.grid[0] = 64; k.grid[1] = 1; k.grid[2] = 1; k.block[0] = 256; k.block[1] = 1; k.block[2] = 1;
  k.registers = 24; k.static_shared = 100; k.dynamic_shared = 28;
  ks_record_writer_add_kernel (w, 4242, &k, ks_record_writer_intern (w, "void gemm<float>(int)"),
                               ks_record_writer_intern (w, "gemm"), 0);
  m.start = 1000600; m.end = 1000700; m.bytes = 1 << 20; m.device_id = 0; m.stream_id = 7;
  m.correlation_id = 8; m.copy_kind = 1; m.src_kind = 1; m.dst_kind = 3;  /* CUPTI: Pageable, Device */
  ks_record_writer_add_memcpy (w, 4242, &m);
  sy.start = 1000800; sy.end = 1000900; sy.stream_id = G_MAXUINT32; sy.sync_type = 4;
  ks_record_writer_add_sync (w, 4242, 0, &sy);

  g_assert_true (ks_record_writer_finish (w, 1001000, TRUE, &error));
  g_assert_no_error (error);
  ks_record_writer_free (w);

  trace = ks_trace_load (file, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (trace->format, ==, KS_FORMAT_KSCOPE);
  g_assert_cmpstr (ks_trace_get_metadata (trace, "source_format"), ==, "cupti");
  g_assert_cmpstr (ks_trace_get_metadata (trace, "complete"), ==, "1");

  ks_trace_get_counts (trace, &counts);
  g_assert_cmpuint (counts.by_kind[KS_SLICE_CUDA_RUNTIME], ==, 2);
  g_assert_cmpuint (counts.by_kind[KS_SLICE_KERNEL], ==, 1);
  g_assert_cmpuint (counts.by_kind[KS_SLICE_MEMCPY], ==, 1);
  g_assert_cmpuint (counts.by_kind[KS_SLICE_SYNC], ==, 1);
  g_assert_cmpuint (counts.launch_flows, ==, 2);
  g_assert_cmpuint (count_named (trace, KS_SLICE_CUDA_RUNTIME, "cudaLaunchKernel"), ==, 1);
  g_assert_cmpuint (count_named (trace, KS_SLICE_MEMCPY, "Memcpy HtoD (Pageable -> Device)"), ==, 1);
  g_assert_cmpuint (count_named (trace, KS_SLICE_SYNC, "Context Sync"), ==, 1);
  g_assert_cmpuint (count_named (trace, KS_SLICE_KERNEL, "void gemm<float>(int)"), ==, 1);

  stream = find_stream (trace, trace->processes[0].group, 0, 7);
  g_assert_nonnull (stream);
  g_assert_cmpuint (stream->gpu[0].kernel.shared_memory, ==, 128);
  g_assert_cmpuint (stream->gpu[1].copy.src_kind, ==, KS_MEM_PAGEABLE);
  g_assert_cmpuint (stream->gpu[1].copy.dst_kind, ==, KS_MEM_DEVICE);
  g_assert_nonnull (find_stream (trace, trace->processes[0].group, 0, -1));
  g_assert_cmpstr (ks_trace_string (trace, trace->processes[0].name), ==, "python3");
  g_assert_cmpint (trace->processes[0].pid, ==, 4242);

  remove_path (path);
}

/* The count of @table in the database file @path alone, as SQLite reads
 * it when told that nothing else exists. */
static gint64
count_in_file (const char *path,
               const char *table)
{
  g_autofree char *uri = g_strdup_printf ("file:%s?immutable=1", path);
  g_autofree char *sql = g_strdup_printf ("SELECT count(*) FROM %s", table);
  sqlite3 *db = NULL;
  sqlite3_stmt *stmt = NULL;
  gint64 n = -1;

  g_assert_cmpint (sqlite3_open_v2 (uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_prepare_v2 (db, sql, -1, &stmt, NULL), ==, SQLITE_OK);
  if (sqlite3_step (stmt) == SQLITE_ROW)
    n = sqlite3_column_int64 (stmt, 0);
  sqlite3_finalize (stmt);
  sqlite3_close (db);
  return n;
}

/* A recording killed in the middle of a transaction leaves its journal
 * beside the file. The journal is not replayed (a rollback writes the
 * file, and a journal from someone else could name any file as its
 * super-journal, which the rollback deletes): what the database file
 * holds loads, with a warning, and the file and its journal are left as
 * they were. With @spill, the transaction was big enough for SQLite to
 * write some of it into the file before the "crash". */
static void
check_hot_journal (gboolean spill)
{
  g_autofree char *src = cloverleaf_path ();
  g_autofree char *live = NULL;
  g_autofree char *live_journal = NULL;
  g_autofree char *crashed = NULL;
  g_autofree char *crashed_journal = NULL;
  g_autofree char *committed = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autofree char *journal_before = NULL;
  g_autofree char *journal_after = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsTrace) back = NULL;
  g_autoptr(GFile) out = NULL;
  KsTraceCounts counts;
  gsize committed_size, before_size, after_size, journal_size, journal_after_size;
  gint64 kernels, runtime;
  sqlite3 *db = NULL;

  if (src == NULL)
    {
      g_test_skip ("the Nsight export of the corpus (KS_SHARED_DIR) is absent");
      return;
    }

  trace = load (src, &error);
  g_assert_no_error (error);
  live = temp_path ("live.kscope");
  out = g_file_new_for_path (live);
  g_assert_true (ks_kscope_write (trace, out, NULL, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (live, &committed, &committed_size, NULL));

  /* A transaction, then a "crash": the files copied as they are. How
   * small a cache makes SQLite spill part of it while its b-trees stay
   * walkable depends on the file's layout (12 pages for this one). */
  g_assert_cmpint (sqlite3_open (live, &db), ==, SQLITE_OK);
  exec_sql (db, spill ? "PRAGMA journal_mode = DELETE; PRAGMA cache_size = 12; BEGIN;"
                        "DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL; DELETE FROM CUPTI_ACTIVITY_KIND_RUNTIME;"
                        "UPDATE StringIds SET value = 'overwritten';"
                      : "PRAGMA journal_mode = DELETE; BEGIN;"
                        "DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL; UPDATE StringIds SET value = 'overwritten';");
  crashed = temp_path ("crashed.kscope");
  crashed_journal = g_strconcat (crashed, "-journal", NULL);
  live_journal = g_strconcat (live, "-journal", NULL);
  copy_file (live, crashed);
  copy_file (live_journal, crashed_journal);
  exec_sql (db, "ROLLBACK");
  sqlite3_close (db);

  g_assert_true (g_file_get_contents (crashed, &before, &before_size, NULL));
  g_assert_true (g_file_get_contents (crashed_journal, &journal_before, &journal_size, NULL));
  g_assert_cmpuint (journal_size, >, 0);
  /* Spilled, the file holds part of the transaction; else none of it. */
  g_assert_true (spill != (before_size == committed_size && memcmp (before, committed, before_size) == 0));
  kernels = count_in_file (crashed, "CUPTI_ACTIVITY_KIND_KERNEL");
  runtime = count_in_file (crashed, "CUPTI_ACTIVITY_KIND_RUNTIME");
  g_test_message ("the file alone holds %" G_GINT64_FORMAT " kernels, %" G_GINT64_FORMAT " runtime calls",
                  kernels, runtime);
  if (!spill)
    {
      g_assert_cmpint (kernels, ==, 1312);
      g_assert_cmpint (runtime, ==, 3048);
    }

  back = load (crashed, &error);
  g_assert_no_error (error);
  ks_trace_get_counts (back, &counts);
  g_assert_cmpuint (counts.by_kind[KS_SLICE_KERNEL], ==, kernels);
  g_assert_cmpuint (counts.by_kind[KS_SLICE_CUDA_RUNTIME] + counts.by_kind[KS_SLICE_CUDA_DRIVER], ==, runtime);
  /* Unspilled, the journal's header is still zero: the file was not
   * touched, nothing is missing, and nothing is said. */
  g_assert_cmpstr (ks_trace_get_metadata (back, "warnings"), ==,
                   spill ? "The file was left in the middle of a write (a -journal file is beside it); the journal "
                           "was not replayed, so only what the database file itself holds was read"
                         : NULL);
  if (!spill)
    g_assert_cmpuint (count_named (back, KS_SLICE_CUDA_RUNTIME, "cudaLaunchKernel"), ==, 1312);

  /* Read-only: the file and its journal are exactly as they were. */
  g_assert_true (g_file_get_contents (crashed, &after, &after_size, NULL));
  g_assert_cmpuint (after_size, ==, before_size);
  g_assert_cmpint (memcmp (after, before, after_size), ==, 0);
  g_assert_true (g_file_get_contents (crashed_journal, &journal_after, &journal_after_size, NULL));
  g_assert_cmpuint (journal_after_size, ==, journal_size);
  g_assert_cmpint (memcmp (journal_after, journal_before, journal_size), ==, 0);

  g_unlink (crashed_journal);
  remove_path (crashed);
  remove_path (live);
}

static void
test_hot_journal (void)
{
  check_hot_journal (FALSE);
}

static void
test_hot_journal_spilled (void)
{
  check_hot_journal (TRUE);
}

/* The recorder and ks_kscope_write() write one schema */

#define T0 G_GUINT64_CONSTANT (5000000000)
#define PID 4242

static sqlite3 *
open_db (const char *path)
{
  sqlite3 *db = NULL;

  g_assert_cmpint (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);
  return db;
}

/* One line per row of @sql, columns separated by '|'. */
static char *
rows_text (sqlite3    *db,
           const char *sql)
{
  GString *out = g_string_new (NULL);
  sqlite3_stmt *s = NULL;

  if (sqlite3_prepare_v2 (db, sql, -1, &s, NULL) != SQLITE_OK)
    g_error ("%s: %s", sql, sqlite3_errmsg (db));
  while (sqlite3_step (s) == SQLITE_ROW)
    {
      for (int c = 0; c < sqlite3_column_count (s); c++)
        {
          const char *v = (const char *)sqlite3_column_text (s, c);

          g_string_append_printf (out, "%s%s", c ? "|" : "", v ? v : "NULL");
        }
      g_string_append_c (out, '\n');
    }
  sqlite3_finalize (s);
  return g_string_free (out, FALSE);
}

static char *
table_info (sqlite3    *db,
            const char *table)
{
  g_autofree char *sql = g_strdup_printf ("SELECT name, type, \"notnull\", pk FROM pragma_table_info('%s') ORDER BY cid",
                                          table);

  return rows_text (db, sql);
}

static char *
index_info (sqlite3    *db,
            const char *table)
{
  g_autofree char *sql = g_strdup_printf ("SELECT name, sql FROM sqlite_master WHERE type = 'index' "
                                          "AND tbl_name = '%s' AND sql IS NOT NULL ORDER BY name",
                                          table);

  return rows_text (db, sql);
}

static GStrv
tables_of (sqlite3    *db,
           const char *pattern)
{
  g_autofree char *sql = g_strdup_printf ("SELECT name FROM sqlite_master WHERE type = 'table' "
                                          "AND name %s ORDER BY name", pattern);
  g_autofree char *text = rows_text (db, sql);

  return g_strsplit (g_strchomp (text), "\n", -1);
}

static gint64
query_int (sqlite3    *db,
           const char *sql)
{
  g_autofree char *text = rows_text (db, sql);

  return *text ? g_ascii_strtoll (text, NULL, 10) : -1;
}

/* A recording with a row for every table the recorder writes; GPU work
 * with CUPTI's enum values as the injection library sends them. */
static void
write_recording (const char *path,
                 gboolean    finish)
{
  g_autoptr(GError) error = NULL;
  KsRecordWriter *w;
  KsWireKernel k = { 0 };
  KsWireMemcpy m = { 0 };
  KsWireMemset ms = { 0 };
  KsWireApi a = { 0 };
  KsWireSync sy = { 0 };
  KsWireStream st = { 0 };
  KsWireOsrt o = { 0 };
  KsRecordGpu gpu = { 0 };
  guint32 counter;

  w = ks_record_writer_new (path, T0, G_GINT64_CONSTANT (1700000000000000000), &error);
  g_assert_no_error (error);
  ks_record_writer_add_capture_meta (w, "command", "python3 train.py");
  ks_record_writer_add_process (w, PID, "python3");
  ks_record_writer_add_thread (w, PID, PID, "python3", "main");
  ks_record_writer_add_thread (w, PID, PID + 1, "pt_autograd_0", "autograd");

  gpu.id = 0;
  gpu.name = (char *)"NVIDIA H200";
  gpu.uuid = (char *)"GPU-0000";
  gpu.bus_location = (char *)"0000:19:00.0";
  gpu.total_memory = G_GUINT64_CONSTANT (150000000000);
  gpu.sm_count = 132;
  gpu.compute_major = 9;
  gpu.threads_per_warp = 32;
  gpu.max_threads_per_block = 1024;
  gpu.max_warps_per_sm = 64;
  ks_record_writer_add_gpu (w, &gpu);

  st.context_id = 1; st.stream_id = 7; st.priority = 0; st.flag = 2;  /* non-blocking */
  ks_record_writer_add_stream (w, PID, &st);

  a.start = T0 + 100; a.end = T0 + 200; a.tid = PID; a.correlation_id = 7;
  ks_record_writer_add_api (w, PID, &a, ks_record_writer_intern (w, "cudaLaunchKernel_v7000"));
  a.start = T0 + 300; a.end = T0 + 400; a.correlation_id = 8;
  ks_record_writer_add_api (w, PID, &a, ks_record_writer_intern (w, "cudaMemcpyAsync_v3020"));
  a.start = T0 + 410; a.end = T0 + 420; a.correlation_id = 9;
  ks_record_writer_add_api (w, PID, &a, ks_record_writer_intern (w, "cudaMemsetAsync_v3020"));

  k.start = T0 + 250; k.end = T0 + 500; k.context_id = 1; k.stream_id = 7; k.correlation_id = 7;
  k.grid[0] = 64; k.grid[1] = 1; k.grid[2] = 1; k.block[0] = 256; k.block[1] = 1; k.block[2] = 1;
  k.registers = 24; k.launch_type = 0;  /* CUPTI_ACTIVITY_LAUNCH_TYPE_REGULAR */
  ks_record_writer_add_kernel (w, PID, &k, ks_record_writer_intern (w, "void gemm<float>(int)"),
                               ks_record_writer_intern (w, "gemm"), 0);
  m.start = T0 + 600; m.end = T0 + 700; m.bytes = 1 << 20; m.context_id = 1; m.stream_id = 7;
  m.correlation_id = 8; m.copy_kind = 1; m.src_kind = 2; m.dst_kind = 3;  /* HtoD, Pinned -> Device */
  ks_record_writer_add_memcpy (w, PID, &m);
  ms.start = T0 + 710; ms.end = T0 + 720; ms.bytes = 4096; ms.context_id = 1; ms.stream_id = 7;
  ms.correlation_id = 9; ms.mem_kind = 3;  /* Device */
  ks_record_writer_add_memset (w, PID, &ms);
  sy.start = T0 + 800; sy.end = T0 + 900; sy.context_id = 1; sy.stream_id = 7; sy.sync_type = 3;
  sy.event_id = G_MAXUINT32;
  ks_record_writer_add_sync (w, PID, 0, &sy);

  ks_record_writer_add_memory (w, PID, PID, T0 + 150, 0, 0x7f0000000000, 1 << 20, 1 << 20);
  ks_record_writer_add_nvtx (w, PID, KS_NVTX_PUSH_POP, T0 + 50, T0 + 950, PID, 0, 0, 0,
                             FALSE, 0, "step", 0, 0, 0, 0);
  ks_record_writer_add_nvtx (w, PID, KS_NVTX_MARK, T0 + 60, 0, PID, 0, 0, 0,
                             FALSE, 0, "tick", 0, 0, 0, 0);

  o.start = T0 + 960; o.end = T0 + 990; o.tid = PID + 1; o.function = KS_OSRT_NANOSLEEP;
  ks_record_writer_add_osrt (w, PID, &o);

  counter = ks_record_writer_add_counter (w, "GPU 0 utilization", "%", 0, "NVML utilization");
  ks_record_writer_add_sample (w, counter, T0 + 100, 42.0);
  ks_record_writer_add_sample (w, counter, T0 + 900, 87.5);

  ks_record_writer_add_diagnostic (w, T0 + 10, KS_KSCOPE_SEVERITY_INFO, "capture", "capture range started");
  ks_record_writer_add_diagnostic (w, T0 + 20, KS_KSCOPE_SEVERITY_WARNING, "nvml", "no NVML: GPU metrics are not sampled");
  ks_record_writer_add_diagnostic (w, T0 + 30, KS_KSCOPE_SEVERITY_ERROR, "cupti", "CUPTI_ERROR_NOT_INITIALIZED");
  ks_record_writer_add_diagnostic (w, T0 + 990, KS_KSCOPE_SEVERITY_INFO, "capture", "capture range stopped");

  if (finish)
    {
      g_assert_true (ks_record_writer_finish (w, T0 + 1000, TRUE, &error));
      g_assert_no_error (error);
    }
  else
    ks_record_writer_commit (w);
  ks_record_writer_free (w);
}

static void
assert_same_text (const char *what,
                  const char *table,
                  const char *a,
                  const char *b)
{
  if (g_strcmp0 (a, b) != 0)
    g_error ("%s of %s differ:\n--- recorder\n%s--- ks_kscope_write\n%s", what, table, a, b);
}

/* A recording and the same recording saved again by ks_kscope_write()
 * have the same columns in every table both hold, the same indexes and
 * the same ENUM rows; and every table is the schema module's. */
static void
test_same_schema (void)
{
  g_autofree char *recorded = temp_path ("recorded.kscope");
  g_autofree char *saved = temp_path ("saved.kscope");
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(GFile) out = g_file_new_for_path (saved);
  g_auto(GStrv) rec_tables = NULL;
  g_auto(GStrv) enums_a = NULL;
  g_auto(GStrv) enums_b = NULL;
  sqlite3 *a, *b, *ref = NULL;
  g_autoptr(GHashTable) reference = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  /* what both writers must hold for this recording */
  static const char * const expected[] = {
    "ANALYSIS_DETAILS", "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
    "CUPTI_ACTIVITY_KIND_MEMSET", "CUPTI_ACTIVITY_KIND_RUNTIME",
    "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "KS_COUNTERS", "KS_COUNTER_SAMPLES",
    "KS_DIAGNOSTICS", "KS_MEMORY_EVENTS", "KS_META", "KS_THREADS", "NVTX_EVENTS", "OSRT_API",
    "PROCESSES", "StringIds", "TARGET_INFO_CUDA_STREAM", "TARGET_INFO_GPU",
    "TARGET_INFO_SESSION_START_TIME", "ThreadNames",
  };
  guint compared = 0;

  write_recording (recorded, TRUE);
  trace = load (recorded, &error);
  g_assert_no_error (error);
  g_assert_true (ks_kscope_write (trace, out, NULL, NULL, &error));
  g_assert_no_error (error);

  /* The schema module's own definitions, in a scratch database. */
  g_assert_cmpint (sqlite3_open (":memory:", &ref), ==, SQLITE_OK);
  for (guint t = 0; t < KS_KSCOPE_N_TABLES; t++)
    {
      g_assert_cmpint (ks_kscope_schema_create_table (ref, t), ==, SQLITE_OK);
      g_hash_table_insert (reference, (gpointer)ks_kscope_table_name (t),
                           table_info (ref, ks_kscope_table_name (t)));
    }
  sqlite3_close (ref);

  a = open_db (recorded);
  b = open_db (saved);

  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    {
      g_autofree char *sql = g_strdup_printf ("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = '%s'",
                                              expected[i]);

      if (query_int (a, sql) != 1 || query_int (b, sql) != 1)
        g_error ("%s is missing from the recording (%d) or the saved copy (%d)", expected[i],
                 (int)query_int (a, sql), (int)query_int (b, sql));
    }

  /* Every table of either file is the schema module's, column for column. */
  for (guint f = 0; f < 2; f++)
    {
      sqlite3 *db = f ? b : a;
      g_auto(GStrv) names = tables_of (db, "NOT LIKE 'ENUM\\_%' ESCAPE '\\'");

      for (guint i = 0; names[i] != NULL; i++)
        {
          g_autofree char *info = table_info (db, names[i]);
          const char *want = g_hash_table_lookup (reference, names[i]);

          if (want == NULL)
            g_error ("%s holds %s, which the schema does not define", f ? "ks_kscope_write" : "the recorder", names[i]);
          assert_same_text ("columns (schema vs. file)", names[i], want, info);
        }
    }

  /* Tables that both hold: the same columns and the same indexes. */
  rec_tables = tables_of (a, "NOT LIKE 'ENUM\\_%' ESCAPE '\\'");
  for (guint i = 0; rec_tables[i] != NULL; i++)
    {
      g_autofree char *sql = g_strdup_printf ("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = '%s'",
                                              rec_tables[i]);
      g_autofree char *cols_a = NULL, *cols_b = NULL, *idx_a = NULL, *idx_b = NULL;

      if (query_int (b, sql) == 0)
        continue;
      cols_a = table_info (a, rec_tables[i]);
      cols_b = table_info (b, rec_tables[i]);
      assert_same_text ("columns", rec_tables[i], cols_a, cols_b);
      idx_a = index_info (a, rec_tables[i]);
      idx_b = index_info (b, rec_tables[i]);
      assert_same_text ("indexes", rec_tables[i], idx_a, idx_b);
      compared++;
    }
  g_test_message ("%u tables compared", compared);
  g_assert_cmpuint (compared, >=, G_N_ELEMENTS (expected));

  /* The same ENUM tables with the same rows. */
  enums_a = tables_of (a, "LIKE 'ENUM\\_%' ESCAPE '\\'");
  enums_b = tables_of (b, "LIKE 'ENUM\\_%' ESCAPE '\\'");
  g_assert_cmpuint (g_strv_length (enums_a), ==, 8);
  g_assert_true (g_strv_equal ((const char * const *)enums_a, (const char * const *)enums_b));
  for (guint i = 0; enums_a[i] != NULL; i++)
    {
      g_autofree char *sql = g_strdup_printf ("SELECT id, name, label FROM %s ORDER BY id", enums_a[i]);
      g_autofree char *rows_a = rows_text (a, sql);
      g_autofree char *rows_b = rows_text (b, sql);
      g_autofree char *cols_a = table_info (a, enums_a[i]);
      g_autofree char *cols_b = table_info (b, enums_a[i]);

      assert_same_text ("rows", enums_a[i], rows_a, rows_b);
      assert_same_text ("columns", enums_a[i], cols_a, cols_b);
    }

  /* Nsight's numbers in both files, as Nsight's own exports have them. */
  for (guint f = 0; f < 2; f++)
    {
      sqlite3 *db = f ? b : a;
      g_autofree char *kinds = rows_text (db, "SELECT s.label, d.label, o.label FROM CUPTI_ACTIVITY_KIND_MEMCPY m "
                                              "JOIN ENUM_CUDA_MEM_KIND s ON s.id = m.srcKind "
                                              "JOIN ENUM_CUDA_MEM_KIND d ON d.id = m.dstKind "
                                              "JOIN ENUM_CUDA_MEMCPY_OPER o ON o.id = m.copyKind");
      g_autofree char *memset_kind = rows_text (db, "SELECT e.label FROM CUPTI_ACTIVITY_KIND_MEMSET m "
                                                    "JOIN ENUM_CUDA_MEM_KIND e ON e.id = m.memKind");
      g_autofree char *sync = rows_text (db, "SELECT e.label FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION s "
                                             "JOIN ENUM_CUPTI_SYNC_TYPE e ON e.id = s.syncType");

      g_assert_cmpstr (kinds, ==, "Pinned|Device|Host-to-Device\n");
      g_assert_cmpint (query_int (db, "SELECT srcKind * 10 + dstKind FROM CUPTI_ACTIVITY_KIND_MEMCPY"), ==, 12);
      g_assert_cmpstr (memset_kind, ==, "Device\n");
      g_assert_cmpstr (sync, ==, "Stream sync\n");
    }
  g_assert_cmpint (query_int (a, "SELECT launchType FROM CUPTI_ACTIVITY_KIND_KERNEL"), ==, 1);
  g_assert_cmpint (query_int (a, "SELECT flag FROM TARGET_INFO_CUDA_STREAM"), ==, 2);
  g_assert_cmpint (query_int (a, "SELECT COUNT(*) FROM KS_THREADS WHERE globalPid = pid * 16777216"), ==, 2);

  sqlite3_close (a);
  sqlite3_close (b);
  remove_path (recorded);
  remove_path (saved);
}

/* A recording cut short (the recorder killed after a commit) has the
 * lookup tables already, says complete = 0, reads back right, and the
 * load says it was cut short. */
static void
test_cut_short (void)
{
  g_autofree char *path = temp_path ("cut.kscope");
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  const KsTrack *stream = NULL;
  sqlite3 *db;

  write_recording (path, FALSE);

  db = open_db (path);
  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM ENUM_CUDA_MEM_KIND"), ==, 8);
  g_assert_cmpint (query_int (db, "SELECT id FROM ENUM_CUDA_MEM_KIND WHERE label = 'Unknown'"), ==, 7);
  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'ANALYSIS_DETAILS'"), ==, 0);
  sqlite3_close (db);

  trace = load (path, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (ks_trace_get_metadata (trace, "complete"), ==, "0");
  /* The recorder never finished: no end_reason. The diagnostics follow. */
  g_assert_cmpstr (ks_trace_get_metadata (trace, "warnings"), ==,
                   "The recording was cut short: the recorder stopped before it finished the file "
                   "(it was killed or crashed); what happened after its last save is missing\n"
                   "no NVML: GPU metrics are not sampled\n"
                   "error: CUPTI_ERROR_NOT_INITIALIZED");
  stream = find_stream (trace, trace->processes[0].group, 0, 7);
  g_assert_nonnull (stream);
  g_assert_cmpuint (stream->n_slices, ==, 4);
  for (guint32 i = 0; i < stream->n_slices; i++)
    if (stream->slice_kind[i] == KS_SLICE_MEMCPY)
      {
        g_assert_cmpuint (stream->gpu[i].copy.src_kind, ==, KS_MEM_PINNED);
        g_assert_cmpuint (stream->gpu[i].copy.dst_kind, ==, KS_MEM_DEVICE);
      }
    else if (stream->slice_kind[i] == KS_SLICE_MEMSET)
      g_assert_cmpuint (stream->gpu[i].copy.dst_kind, ==, KS_MEM_DEVICE);

  remove_path (path);
}

/* KS_DIAGNOSTICS rows become load warnings only when they are warnings
 * or errors: "capture range started/stopped" is information. */
static void
test_diagnostics_severity (void)
{
  g_autofree char *path = temp_path ("diag.kscope");
  g_autofree char *saved = temp_path ("diag-saved.kscope");
  g_autoptr(GFile) out = g_file_new_for_path (saved);
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsTrace) again = NULL;
  sqlite3 *db;

  write_recording (path, TRUE);

  /* The rows are all in the file, and a few more severities besides. */
  g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (db, "INSERT INTO KS_DIAGNOSTICS VALUES (40, 'debug', 'test', 'not a problem');"
                                     "INSERT INTO KS_DIAGNOSTICS VALUES (50, NULL, 'test', 'no severity');"
                                     "INSERT INTO KS_DIAGNOSTICS VALUES (60, 'Warning', 'test', 'spelled upper case');",
                                 NULL, NULL, NULL), ==, SQLITE_OK);
  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM KS_DIAGNOSTICS"), ==, 7);
  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM KS_DIAGNOSTICS WHERE severity = 'info'"), ==, 2);
  sqlite3_close (db);

  trace = load (path, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (ks_trace_get_metadata (trace, "warnings"), ==,
                   "no NVML: GPU metrics are not sampled\n"
                   "error: CUPTI_ERROR_NOT_INITIALIZED\n"
                   "spelled upper case");

  /* Saved again, the warnings are the copy's diagnostics, and only they. */
  g_assert_true (ks_kscope_write (trace, out, NULL, NULL, &error));
  g_assert_no_error (error);
  db = open_db (saved);
  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM KS_DIAGNOSTICS WHERE severity = 'warning'"), ==, 3);
  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM KS_DIAGNOSTICS"), ==, 3);
  sqlite3_close (db);
  again = load (saved, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (ks_trace_get_metadata (again, "warnings"), ==, ks_trace_get_metadata (trace, "warnings"));

  remove_path (path);
  remove_path (saved);
}

/* "f:LINE < caller:LINE < …" of @sample, innermost first */
static char *
stack_text (KsTrace        *trace,
            const KsSample *sample)
{
  GString *s = g_string_new (NULL);

  for (guint32 n = sample->node; n != KS_NO_INDEX; n = trace->stack_nodes[n].parent)
    g_string_append_printf (s, "%s%s:%u", s->len ? " < " : "",
                            ks_trace_string (trace, trace->stack_nodes[n].function),
                            trace->stack_nodes[n].line);
  return g_string_free (s, FALSE);
}

/* Our files share a call chain between samples with the same stack:
 * COMPOSITE_EVENTS.callchainId names the SAMPLING_CALLCHAINS id. Chain
 * ids here equal some event ids on purpose, so that joining on the event
 * id (Nsight's way, still used without the column) would give wrong
 * stacks. A sample of a chain the file lacks, or of none, is skipped. */
static void
test_shared_callchains (void)
{
  g_autofree char *path = temp_path ("chains.kscope");
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  static const char * const want[] = {
    /* thread 4242, by time */
    "spin:7", "leaf:30 < mid:20 < main:10", "leaf:30 < mid:20 < main:10", "spin:7",
    /* thread 4243 */
    "leaf:30 < mid:20 < main:10",
  };
  sqlite3 *db = NULL;

  g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);
  exec_sql (db,
            "PRAGMA application_id = 1263747919; PRAGMA user_version = 1;"
            "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
            "INSERT INTO StringIds VALUES (1, 'main'), (2, 'mid'), (3, 'leaf'), (4, 'spin'), (5, '/srv/train.py');"
            "CREATE TABLE COMPOSITE_EVENTS (id INTEGER NOT NULL PRIMARY KEY, start INTEGER NOT NULL, cpu INTEGER,"
            " threadState INTEGER, globalTid INTEGER, cpuCycles INTEGER NOT NULL, callchainId INTEGER);"
            "INSERT INTO COMPOSITE_EVENTS VALUES (1, 100, NULL, NULL, 71168954514, 0, 2),"
            " (2, 200, NULL, NULL, 71168954514, 0, 1), (3, 300, NULL, NULL, 71168954514, 0, 1),"
            " (4, 400, NULL, NULL, 71168954514, 0, 2), (5, 250, NULL, NULL, 71168954515, 0, 1),"
            " (6, 500, NULL, NULL, 71168954514, 0, 9), (7, 600, NULL, NULL, 71168954514, 0, NULL);"
            "CREATE TABLE SAMPLING_CALLCHAINS (id INTEGER NOT NULL, symbol INTEGER NOT NULL, module INTEGER NOT NULL,"
            " kernelMode INTEGER, thumbCode INTEGER, unresolved INTEGER, specialEntry INTEGER, originalIP INTEGER,"
            " unwindMethod INTEGER, stackDepth INTEGER NOT NULL, lineNumber INTEGER, PRIMARY KEY (id, stackDepth));"
            "INSERT INTO SAMPLING_CALLCHAINS (id, symbol, module, stackDepth, lineNumber) VALUES"
            " (1, 1, 5, 2, 10), (1, 3, 5, 0, 30), (1, 2, 5, 1, 20), (2, 4, 5, 0, 7);");
  sqlite3_close (db);

  trace = load (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (trace->n_samples, ==, G_N_ELEMENTS (want));
  for (guint i = 0; i < trace->n_samples; i++)
    {
      g_autofree char *text = stack_text (trace, &trace->samples[i]);

      g_assert_cmpstr (text, ==, want[i]);
    }
  g_assert_cmpint (trace->threads[trace->samples[4].thread].tid, ==, 4243);
  /* the stacks are the prefix tree's: 3 + 1 frames */
  g_assert_cmpuint (trace->n_stack_nodes, ==, 4);
  g_assert_nonnull (strstr (ks_trace_get_metadata (trace, "warnings"), "2 rows referred to"));

  remove_path (path);
}


int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/sqlite/kscope/recorder", test_recorder_file);
  g_test_add_func ("/sqlite/kscope/hot-journal", test_hot_journal);
  g_test_add_func ("/sqlite/kscope/hot-journal-spilled", test_hot_journal_spilled);
  g_test_add_func ("/sqlite/kscope/schema/recorder-and-writer", test_same_schema);
  g_test_add_func ("/sqlite/kscope/schema/cut-short", test_cut_short);
  g_test_add_func ("/sqlite/kscope/diagnostics-severity", test_diagnostics_severity);
  g_test_add_func ("/sqlite/kscope/shared-callchains", test_shared_callchains);

  return g_test_run ();
}
