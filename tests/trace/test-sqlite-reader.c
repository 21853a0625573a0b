/* test-sqlite-reader.c: Nsight Systems exports
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <sqlite3.h>
#include <string.h>
#include <glib/gstdio.h>

#include "ks-kscope-writer.h"
#include "ks-sqlite-reader.h"
#include "ks-trace-loader.h"

#include "test-sqlite-compare.h"
#include "test-sqlite-util.h"
#include "test-sqlite-files.h"

/* The real export of the corpus (Nsight Systems 2024.5.1, schema 3.13.2).
 * Expected numbers were computed with the sqlite3 shell. */
static void
test_cloverleaf (void)
{
  g_autofree char *path = cloverleaf_path ();
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsProgress) progress = ks_progress_new ();
  g_autoptr(GFile) file = NULL;
  g_autofree char *message = NULL;
  KsTraceCounts counts;
  const KsTrack *stream;
  guint32 t;
  gint64 memcpy_bytes = 0;
  struct stat before, after;

  if (path == NULL)
    {
      g_test_skip ("the Nsight export of the corpus (KS_SHARED_DIR) is absent");
      return;
    }

  g_assert_cmpint (g_stat (path, &before), ==, 0);
  file = g_file_new_for_path (path);
  trace = ks_sqlite_reader_load (file, progress, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (trace);
  g_assert_cmpint (trace->format, ==, KS_FORMAT_NSYS_SQLITE);
  g_assert_cmpfloat (ks_progress_get_fraction (progress), ==, 1.0);
  message = ks_progress_dup_message (progress);
  g_assert_nonnull (message);

  /* Opened read-only: the file and its folder are untouched. */
  g_assert_cmpint (g_stat (path, &after), ==, 0);
  g_assert_cmpint (before.st_mtime, ==, after.st_mtime);
  g_assert_cmpint (before.st_size, ==, after.st_size);

  ks_trace_get_counts (trace, &counts);
  g_assert_cmpuint (counts.by_kind[KS_SLICE_KERNEL], ==, 1312);
  g_assert_cmpuint (counts.by_kind[KS_SLICE_MEMCPY], ==, 279);
  g_assert_cmpuint (counts.by_kind[KS_SLICE_MEMSET], ==, 0);
  g_assert_cmpuint (counts.by_kind[KS_SLICE_SYNC], ==, 1312);
  g_assert_cmpuint (counts.by_kind[KS_SLICE_CUDA_RUNTIME], ==, 3047);
  g_assert_cmpuint (counts.by_kind[KS_SLICE_CUDA_DRIVER], ==, 1);
  g_assert_cmpuint (counts.by_kind[KS_SLICE_OSRT], ==, 1831);
  g_assert_cmpuint (counts.by_kind[KS_SLICE_NVTX], ==, 0);
  /* Every runtime call whose correlation id has GPU work links to it. */
  g_assert_cmpuint (counts.launch_flows, ==, 2903);
  g_assert_cmpuint (counts.flows, ==, 2903);

  g_assert_cmpint (sum_duration (trace, KS_SLICE_KERNEL), ==, 294404540);
  g_assert_cmpint (sum_duration (trace, KS_SLICE_MEMCPY), ==, 9390923);
  g_assert_cmpint (sum_duration (trace, KS_SLICE_CUDA_RUNTIME) + sum_duration (trace, KS_SLICE_CUDA_DRIVER), ==, 571656984);
  g_assert_cmpint (sum_duration (trace, KS_SLICE_OSRT), ==, 855689751);

  /* Times start at the first event (a CPU sample at 18318190 ns of the
   * session) and end after the last (a sample at 887963503 ns). */
  g_assert_cmpint (trace->origin_ns, ==, 18318190);
  g_assert_cmpint (trace->duration_ns, >, 887963503 - 18318190);
  g_assert_cmpint (trace->start_utc_ns, ==, G_GINT64_CONSTANT (1696392839587175550) + 18318190);

  /* Its CPU samples: 1531 stacks on 3 threads; the first is the dynamic
   * loader's, 7 frames deep, innermost do_lookup_x in ld-2.31.so. */
  g_assert_cmpuint (trace->n_samples, ==, 1531);
  {
    guint n_tracks = 0;
    const KsSample *first = NULL;

    for (guint32 k = 0; k < trace->n_tracks; k++)
      if (trace->tracks[k].kind == KS_TRACK_SAMPLES)
        n_tracks++;
    g_assert_cmpuint (n_tracks, ==, 3);
    for (guint32 i = 0; i < trace->n_samples; i++)
      if (trace->samples[i].ts == 0)
        first = &trace->samples[i];
    g_assert_nonnull (first);
    g_assert_cmpstr (ks_trace_string (trace, trace->stack_nodes[first->node].function), ==, "do_lookup_x");
    g_assert_cmpstr (ks_trace_string (trace, trace->stack_nodes[first->node].file), ==, "/lib64/ld-2.31.so");
    g_assert_cmpuint (trace->stack_nodes[first->node].line, ==, 0);
    g_assert_cmpuint (trace->stack_nodes[first->node].depth, ==, 6);
  }

  /* CUDA API names lose Nsight's _vNNNN suffix. */
  g_assert_cmpuint (count_named (trace, KS_SLICE_CUDA_RUNTIME, "cudaLaunchKernel"), ==, 1312);
  g_assert_cmpuint (count_named (trace, KS_SLICE_CUDA_RUNTIME, "cudaDeviceSynchronize"), ==, 1312);
  g_assert_cmpuint (count_named (trace, KS_SLICE_CUDA_RUNTIME, "cudaMemcpy"), ==, 279);
  g_assert_cmpuint (count_named (trace, KS_SLICE_CUDA_DRIVER, "cuModuleGetLoadingMode"), ==, 1);
  g_assert_cmpuint (count_named (trace, KS_SLICE_OSRT, "ioctl"), ==, 1253);
  g_assert_cmpuint (count_named (trace, KS_SLICE_MEMCPY, "Memcpy HtoD (Pageable -> Device)"), ==, 254);
  g_assert_cmpuint (count_named (trace, KS_SLICE_MEMCPY, "Memcpy DtoH (Device -> Pageable)"), ==, 25);
  g_assert_cmpuint (count_named (trace, KS_SLICE_SYNC, "Event Sync"), ==, 1312);
  g_assert_cmpuint (count_named (trace, KS_SLICE_KERNEL,
                                 "void clover::par_ranged1d_kernel<update_halo_kernel(int, int, int, int, const std::array<int, (unsigned long)4> &, const std::array<int, (unsigned long)4> &, field_type &, const int *, int)::[lambda(int) (instance 8)]>(clover::Range1d, T1)"), ==, 31);

  /* One process, named from PROCESSES (not the 1769 others of the machine). */
  g_assert_cmpuint (trace->n_processes, ==, 1);
  g_assert_cmpint (trace->processes[0].pid, ==, 1701896);
  g_assert_cmpstr (ks_trace_string (trace, trace->processes[0].name), ==, "cuda-cloverleaf");

  /* four with calls, two more with CPU samples only */
  g_assert_cmpuint (trace->n_threads, ==, 6);
  t = find_thread (trace, 1701896);
  g_assert_cmpuint (t, !=, KS_NO_INDEX);
  g_assert_cmpstr (ks_trace_string (trace, trace->threads[t].name), ==, "cuda-cloverleaf");
  g_assert_cmpuint (trace->tracks[trace->threads[t].track].n_slices, ==, 3048 + 1797);
  t = find_thread (trace, 1701908);
  g_assert_cmpstr (ks_trace_string (trace, trace->threads[t].name), ==, "cuda-EvtHandlr");
  g_assert_cmpuint (trace->tracks[trace->threads[t].track].n_slices, ==, 29);
  t = find_thread (trace, 0);
  g_assert_cmpuint (trace->tracks[trace->threads[t].track].n_slices, ==, 3);

  /* Stream 7 holds kernels and copies; event syncs have no stream (-1). */
  stream = find_stream (trace, trace->processes[0].group, 0, 7);
  g_assert_nonnull (stream);
  g_assert_cmpuint (stream->n_slices, ==, 1312 + 279);
  for (guint32 i = 0; i < stream->n_slices; i++)
    if (stream->slice_kind[i] == KS_SLICE_MEMCPY)
      memcpy_bytes += stream->gpu[i].copy.bytes;
  g_assert_cmpint (memcpy_bytes, ==, 225116952);
  g_assert_cmpint (stream->start[0], ==, 533338240 - 18318190);
  g_assert_cmpuint (stream->gpu[0].kernel.grid[0], ==, 115426);
  g_assert_cmpuint (stream->gpu[0].kernel.block[0], ==, 256);
  g_assert_cmpuint (stream->gpu[0].kernel.registers, ==, 32);
  g_assert_cmpuint (stream->correlation[0], ==, 452);
  stream = find_stream (trace, trace->processes[0].group, 0, -1);
  g_assert_nonnull (stream);
  g_assert_cmpuint (stream->n_slices, ==, 1312);

  g_assert_cmpuint (trace->n_gpus, ==, 4);
  g_assert_cmpint (trace->gpus[0].device, ==, 0);
  g_assert_cmpstr (ks_trace_string (trace, trace->gpus[0].name), ==, "NVIDIA A100-SXM4-80GB");
  g_assert_cmpuint (trace->gpus[0].sm_count, ==, 108);
  g_assert_cmpuint (trace->gpus[0].compute_major, ==, 8);
  g_assert_cmpuint (trace->gpus[0].max_threads_per_sm, ==, 2048);
  g_assert_cmpuint (trace->gpus[0].total_memory, ==, G_GUINT64_CONSTANT (84990623744));
  g_assert_cmpuint (trace->gpus[0].shared_memory_per_sm, ==, 167936);

  g_assert_cmpstr (ks_trace_get_metadata (trace, "nsys_schema_version"), ==, "3.13.2");
  g_assert_null (ks_trace_get_metadata (trace, "warnings"));
}

/* The loader sends SQLite files here. */
static void
test_loader_dispatch (void)
{
  g_autofree char *path = cloverleaf_path ();
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;

  if (path == NULL)
    {
      g_test_skip ("the Nsight export of the corpus (KS_SHARED_DIR) is absent");
      return;
    }

  file = g_file_new_for_path (path);
  g_assert_cmpint (ks_trace_detect_format (file, NULL), ==, KS_FORMAT_NSYS_SQLITE);
  trace = ks_trace_load (file, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (trace->format, ==, KS_FORMAT_NSYS_SQLITE);
  g_assert_cmpuint (trace->n_threads, ==, 6);
}

/* Every SQLite file of the corpus opens. */
static void
test_corpus (void)
{
  g_autofree char *corpus = shared_path ("corpus", NULL);
  g_autoptr(GPtrArray) dirs = g_ptr_array_new_with_free_func (g_free);
  guint found = 0;

  if (corpus == NULL)
    {
      g_test_skip ("the shared corpus (KS_SHARED_DIR/corpus) is absent");
      return;
    }

  g_ptr_array_add (dirs, g_strdup (corpus));
  while (dirs->len > 0)
    {
      g_autofree char *dir_path = g_ptr_array_steal_index (dirs, dirs->len - 1);
      g_autoptr(GDir) dir = g_dir_open (dir_path, 0, NULL);
      const char *name;

      while (dir && (name = g_dir_read_name (dir)))
        {
          g_autofree char *child = g_build_filename (dir_path, name, NULL);
          char header[16] = { 0 };
          FILE *f;

          if (g_file_test (child, G_FILE_TEST_IS_DIR))
            {
              g_ptr_array_add (dirs, g_steal_pointer (&child));
              continue;
            }

          f = fopen (child, "rb");
          if (f == NULL)
            continue;
          if (fread (header, 1, sizeof header, f) == sizeof header &&
              memcmp (header, "SQLite format 3", 16) == 0)
            {
              g_autoptr(GError) error = NULL;
              g_autoptr(KsTrace) trace = load (child, &error);

              g_test_message ("%s", child);
              g_assert_no_error (error);
              g_assert_cmpuint (trace->n_tracks, >, 0);
              found++;
            }
          fclose (f);
        }
    }

  g_assert_cmpuint (found, >=, 1);
}

/* CREATE TABLE statements, verbatim from a schema dump of the corpus. */
static char *
create_statement (const char *dump,
                  const char *table)
{
  g_autofree char *head = g_strdup_printf ("CREATE TABLE %s (", table);
  const char *start = strstr (dump, head);
  const char *end;

  if (start == NULL)
    return NULL;
  end = strstr (start, ");\n");
  g_assert_nonnull (end);
  return g_strndup (start, end + 2 - start);
}

/* A small export built from the real CREATE TABLE text of an Nsight
 * version, with rows that exercise what the reader maps. */
static char *
make_export (const char *dump_name,
             gboolean    metrics)
{
  static const char * const needed[] = {
    "StringIds", "PROCESSES", "ThreadNames", "CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_KERNEL",
    "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET", "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
    "NVTX_EVENTS", "OSRT_API", "TARGET_INFO_GPU", "TARGET_INFO_SESSION_START_TIME",
  };
  g_autofree char *dump_path = shared_path ("corpus", "_tools", "nsys_schema_dumps", dump_name, NULL);
  g_autofree char *dump = NULL;
  g_autofree char *sql = NULL;
  char *path;
  sqlite3 *db = NULL;
  char *stmt;

  if (dump_path == NULL)
    return NULL;
  g_assert_true (g_file_get_contents (dump_path, &dump, NULL, NULL));

  path = temp_path ("export.sqlite");
  g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);

  for (guint i = 0; i < G_N_ELEMENTS (needed); i++)
    {
      stmt = create_statement (dump, needed[i]);
      g_assert_nonnull (stmt);
      exec_sql (db, stmt);
      g_free (stmt);
    }
  if ((stmt = create_statement (dump, "META_DATA_EXPORT")) || (stmt = create_statement (dump, "EXPORT_META_DATA")))
    {
      exec_sql (db, stmt);
      sql = g_strdup_printf ("INSERT INTO %s VALUES ('EXPORT_SCHEMA_VERSION', '%s')",
                             strstr (stmt, "META_DATA_EXPORT") ? "META_DATA_EXPORT" : "EXPORT_META_DATA",
                             strstr (dump_name, "2.9.1") ? "2.9.1" : "3.16.1");
      exec_sql (db, sql);
      g_clear_pointer (&sql, g_free);
      g_free (stmt);
    }
  /* Only the 2.x export created the cuBLAS and memory usage tables. */
  if ((stmt = create_statement (dump, "CUBLAS_EVENTS")))
    {
      exec_sql (db, stmt);
      sql = g_strdup_printf ("INSERT INTO CUBLAS_EVENTS (start, end, eventClass, globalTid, nameId) VALUES"
                             " (1210, 1215, 29, %" G_GINT64_FORMAT ", 13)", GTID (1, 100, 100));
      exec_sql (db, sql);
      g_clear_pointer (&sql, g_free);
      g_free (stmt);
    }

  if ((stmt = create_statement (dump, "CUDA_GPU_MEMORY_USAGE_EVENTS")))
    {
      exec_sql (db, stmt);
      sql = g_strdup_printf ("INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS "
                             "(start, globalPid, deviceId, contextId, address, pc, bytes, memKind, memoryOperationType) VALUES "
                             "(1110, %" G_GINT64_FORMAT ", 0, 1, 4096, 0, 65536, 2, 0),"
                             "(1900, %" G_GINT64_FORMAT ", 0, 1, 4096, 0, 65536, 2, 1)",
                             GPID (1, 100), GPID (1, 100));
      exec_sql (db, sql);
      g_clear_pointer (&sql, g_free);
      g_free (stmt);
    }

  exec_sql (db,
            "INSERT INTO StringIds VALUES (1, 'cudaLaunchKernel_v7000'), (2, 'cuLaunchKernel'),"
            " (3, 'void kernelA<float>(int)'), (4, 'kernelA'), (5, 'cudaMemcpyAsync_v3020'),"
            " (6, 'Registered range'), (7, 'main'), (8, 'worker'), (9, 'pthread_mutex_lock'),"
            " (10, 'cudaMemsetAsync_v3020'), (11, 'cudaStreamSynchronize_v3020'), (12, 'kernelB'),"
            " (13, 'cublasSgemm_v2'), (14, 'cuMemAlloc_v2');"
            "INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (1600000000000000000, '2020-09-13T12:26:40', NULL);"
            "INSERT INTO TARGET_INFO_GPU (vmId, id, name, totalMemory, smCount, maxWarpsPerSm, threadsPerWarp,"
            " computeMajor, computeMinor, maxThreadsPerBlock) VALUES"
            " (281474976710656, 0, 'Test GPU', 16000000000, 80, 48, 32, 7, 5, 1024);");

  sql = g_strdup_printf (
    "INSERT INTO PROCESSES VALUES (%" G_GINT64_FORMAT ", 100, 'app'), (%" G_GINT64_FORMAT ", 200, 'app2'),"
    " (%" G_GINT64_FORMAT ", 300, 'idle');"
    "INSERT INTO ThreadNames VALUES (7, 10, %" G_GINT64_FORMAT "), (8, 10, %" G_GINT64_FORMAT ");",
    GPID (1, 100), GPID (1, 200), GPID (1, 300), GTID (1, 100, 100), GTID (1, 200, 201));
  exec_sql (db, sql);
  g_clear_pointer (&sql, g_free);

  {
    gint64 a = GTID (1, 100, 100), b1 = GTID (1, 200, 201), b2 = GTID (1, 200, 202);
    gint64 pa = GPID (1, 100), pb = GPID (1, 200);
    g_autoptr(GString) s = g_string_new (NULL);

    g_string_append_printf (s,
      "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME (start, end, eventClass, globalTid, correlationId, nameId, returnValue) VALUES"
      " (1000, 1100, 0, %" G_GINT64_FORMAT ", 1, 1, 0), (1200, 1250, 1, %" G_GINT64_FORMAT ", 2, 2, 0),"
      " (1300, 1350, 0, %" G_GINT64_FORMAT ", 3, 5, 0), (1360, 1370, 0, %" G_GINT64_FORMAT ", 4, 10, 0),"
      " (1500, 2000, 0, %" G_GINT64_FORMAT ", 5, 11, 0), (1000, 1050, 0, %" G_GINT64_FORMAT ", 1, 1, 0),"
      " (1260, 1270, 1, %" G_GINT64_FORMAT ", 0, 14, 0);",
      a, a, a, a, a, b1, a);
    g_string_append_printf (s,
      "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, streamId, correlationId, globalPid,"
      " demangledName, shortName, registersPerThread, gridX, gridY, gridZ, blockX, blockY, blockZ,"
      " staticSharedMemory, dynamicSharedMemory, localMemoryPerThread, localMemoryTotal, gridId) VALUES"
      " (1150, 1400, 0, 1, 7, 1, %" G_GINT64_FORMAT ", 3, 4, 40, 10, 2, 1, 128, 1, 1, 1024, 512, 0, 0, 1),"
      " (1400, 1500, 0, 1, 7, 2, %" G_GINT64_FORMAT ", 12, 12, 16, 1, 1, 1, 32, 1, 1, 0, 0, 0, 0, 2),"
      " (1100, 1300, 0, 1, 7, 1, %" G_GINT64_FORMAT ", 3, 4, 40, 10, 2, 1, 128, 1, 1, 1024, 512, 0, 0, 3);",
      pa, pa, pb);
    g_string_append_printf (s,
      "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY (start, end, deviceId, contextId, streamId, correlationId, globalPid,"
      " bytes, copyKind, srcKind, dstKind) VALUES (1500, 1600, 0, 1, 7, 3, %" G_GINT64_FORMAT ", 4096, 2, 2, 1);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET (start, end, deviceId, contextId, streamId, correlationId, globalPid,"
      " value, bytes, memKind) VALUES (1600, 1650, 0, 1, 7, 4, %" G_GINT64_FORMAT ", 0, 256, 2);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start, end, deviceId, contextId, streamId, correlationId,"
      " globalPid, syncType, eventId) VALUES (1650, 1990, 0, 1, 7, 5, %" G_GINT64_FORMAT ", 3, 4294967295),"
      " (2100, 2200, 0, 1, 4294967295, 60, %" G_GINT64_FORMAT ", 4, 4294967295);",
      pa, pa, pa, pa);
    g_string_append_printf (s,
      "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, endGlobalTid, textId, domainId) VALUES"
      " (0, NULL, 75, 'MyLib', %" G_GINT64_FORMAT ", NULL, NULL, 1),"
      " (900, 3000, 59, 'outer', %" G_GINT64_FORMAT ", NULL, NULL, NULL),"
      " (950, 1200, 59, NULL, %" G_GINT64_FORMAT ", NULL, 6, 1),"
      " (1000, 2500, 60, 'async', %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", NULL, NULL),"
      " (1800, NULL, 34, 'checkpoint', %" G_GINT64_FORMAT ", NULL, NULL, NULL),"
      " (2600, NULL, 59, 'never closed', %" G_GINT64_FORMAT ", NULL, NULL, NULL),"
      " (50, NULL, 39, 'MPI Rank 0', %" G_GINT64_FORMAT ", NULL, NULL, NULL);",
      a, a, a, a, a, a, b1, b2);
    g_string_append_printf (s,
      "INSERT INTO OSRT_API (start, end, eventClass, globalTid, nameId, returnValue, nestingLevel, callchainId) VALUES"
      " (1210, 1220, 27, %" G_GINT64_FORMAT ", 9, 0, 0, 0), (100, 200, 27, %" G_GINT64_FORMAT ", 9, 0, 0, 0);",
      a, b2);
    exec_sql (db, s->str);
  }

  if (metrics)
    exec_sql (db,
              "CREATE TABLE TARGET_INFO_GPU_METRICS (typeId INTEGER NOT NULL, sourceId INTEGER NOT NULL,"
              " typeName TEXT NOT NULL, metricId INTEGER NOT NULL, metricName TEXT NOT NULL);"
              "CREATE TABLE GPU_METRICS (timestamp INTEGER, typeId INTEGER NOT NULL, metricId INTEGER NOT NULL,"
              " value INTEGER NOT NULL);"
              "INSERT INTO TARGET_INFO_GPU_METRICS VALUES (281474976710656, 0, 'GA10x', 3, 'SMs Active [Throughput %]');"
              "INSERT INTO GPU_METRICS VALUES (1000, 281474976710656, 3, 10), (2000, 281474976710656, 3, 85),"
              " (1500, 281474976710656, 3, 40), (1600, 281474976710656, 99, 1);");

  sqlite3_close (db);
  return path;
}

static const KsTrack *
nvtx_track (KsTrace *trace,
            guint32  thread)
{
  for (guint32 t = 0; t < trace->n_tracks; t++)
    if (trace->tracks[t].kind == KS_TRACK_NVTX && trace->tracks[t].thread == thread)
      return &trace->tracks[t];
  return NULL;
}

static void
check_export (KsTrace  *trace,
              gboolean  v2)
{
  KsTraceCounts counts;
  const KsTrack *track;
  guint32 a, b1, b2;
  guint32 pa, pb;

  g_assert_cmpint (trace->format, ==, KS_FORMAT_NSYS_SQLITE);
  g_assert_cmpstr (ks_trace_get_metadata (trace, "nsys_schema_version"), ==, v2 ? "2.9.1" : "3.16.1");

  ks_trace_get_counts (trace, &counts);
  g_assert_cmpuint (counts.by_kind[KS_SLICE_CUDA_RUNTIME], ==, 5);
  g_assert_cmpuint (counts.by_kind[KS_SLICE_CUDA_DRIVER], ==, 2);
  g_assert_cmpuint (counts.by_kind[KS_SLICE_KERNEL], ==, 3);
  g_assert_cmpuint (counts.by_kind[KS_SLICE_MEMCPY], ==, 1);
  g_assert_cmpuint (counts.by_kind[KS_SLICE_MEMSET], ==, 1);
  g_assert_cmpuint (counts.by_kind[KS_SLICE_SYNC], ==, 2);
  g_assert_cmpuint (counts.by_kind[KS_SLICE_NVTX], ==, 4);
  g_assert_cmpuint (counts.by_kind[KS_SLICE_OSRT], ==, 2);
  g_assert_cmpuint (counts.by_kind[KS_SLICE_GENERIC], ==, v2 ? 1 : 0);
  g_assert_cmpuint (count_named (trace, KS_SLICE_GENERIC, "cublasSgemm_v2"), ==, v2 ? 1 : 0);
  g_assert_cmpuint (counts.instants, ==, 1);
  g_assert_cmpuint (counts.memory_events, ==, v2 ? 2 : 0);
  g_assert_cmpuint (counts.counter_samples, ==, v2 ? 0 : 3);
  /* Launches link within their own process: the same correlation id 1
   * in the second process finds that process's kernel. */
  g_assert_cmpuint (counts.launch_flows, ==, 6);

  /* Processes with events only, each its own correlation group. */
  g_assert_cmpuint (trace->n_processes, ==, 2);
  pa = ks_trace_find_process (trace, 100);
  pb = ks_trace_find_process (trace, 200);
  g_assert_cmpstr (ks_trace_string (trace, trace->processes[pa].name), ==, "app");
  g_assert_cmpstr (ks_trace_string (trace, trace->processes[pb].name), ==, "app2");
  g_assert_cmpuint (trace->processes[pa].group, !=, trace->processes[pb].group);

  g_assert_cmpuint (trace->n_threads, ==, 3);
  a = find_thread (trace, 100);
  b1 = find_thread (trace, 201);
  b2 = find_thread (trace, 202);
  g_assert_cmpstr (ks_trace_string (trace, trace->threads[a].name), ==, "main");
  g_assert_cmpstr (ks_trace_string (trace, trace->threads[b1].name), ==, "worker");
  g_assert_cmpstr (ks_trace_string (trace, trace->threads[b2].name), ==, "MPI Rank 0");

  for (guint32 f = 0; f < trace->n_flows; f++)
    {
      const KsFlow *flow = &trace->flows[f];
      const KsTrack *from = &trace->tracks[flow->from_track];
      const KsTrack *to = &trace->tracks[flow->to_track];

      g_assert_cmpuint (trace->threads[from->thread].process == pa ? trace->processes[pa].group
                                                                     : trace->processes[pb].group, ==, to->group);
      if (from->thread == b1)
        g_assert_cmpint (to->start[flow->to_slice] + trace->origin_ns, ==, 1100);
    }

  g_assert_cmpuint (count_named (trace, KS_SLICE_CUDA_RUNTIME, "cudaLaunchKernel"), ==, 2);
  g_assert_cmpuint (count_named (trace, KS_SLICE_CUDA_RUNTIME, "cudaMemsetAsync"), ==, 1);
  g_assert_cmpuint (count_named (trace, KS_SLICE_CUDA_DRIVER, "cuLaunchKernel"), ==, 1);
  /* "_v2" is part of the API's name, not Nsight's version suffix. */
  g_assert_cmpuint (count_named (trace, KS_SLICE_CUDA_DRIVER, "cuMemAlloc_v2"), ==, 1);
  g_assert_cmpuint (count_named (trace, KS_SLICE_KERNEL, "void kernelA<float>(int)"), ==, 2);
  g_assert_cmpuint (count_named (trace, KS_SLICE_MEMCPY, "Memcpy DtoH (Device -> Pinned)"), ==, 1);
  g_assert_cmpuint (count_named (trace, KS_SLICE_MEMSET, "Memset (Device)"), ==, 1);
  g_assert_cmpuint (count_named (trace, KS_SLICE_SYNC, "Stream Sync"), ==, 1);
  g_assert_cmpuint (count_named (trace, KS_SLICE_SYNC, "Context Sync"), ==, 1);
  g_assert_cmpuint (count_named (trace, KS_SLICE_OSRT, "pthread_mutex_lock"), ==, 2);

  track = find_stream (trace, trace->processes[pa].group, 0, 7);
  g_assert_nonnull (track);
  g_assert_cmpuint (track->n_slices, ==, 5);
  g_assert_cmpuint (track->gpu[0].kernel.grid[0], ==, 10);
  g_assert_cmpuint (track->gpu[0].kernel.grid[1], ==, 2);
  g_assert_cmpuint (track->gpu[0].kernel.block[0], ==, 128);
  g_assert_cmpuint (track->gpu[0].kernel.registers, ==, 40);
  g_assert_cmpuint (track->gpu[0].kernel.shared_memory, ==, 1536);
  g_assert_cmpuint (track->gpu[2].copy.bytes, ==, 4096);
  g_assert_cmpuint (track->gpu[2].copy.copy_kind, ==, KS_COPY_DTOH);
  g_assert_cmpuint (track->gpu[2].copy.src_kind, ==, KS_MEM_DEVICE);
  g_assert_cmpuint (track->gpu[2].copy.dst_kind, ==, KS_MEM_PINNED);
  g_assert_cmpuint (track->gpu[3].copy.dst_kind, ==, KS_MEM_DEVICE);
  g_assert_cmpuint (track->gpu[3].copy.bytes, ==, 256);
  g_assert_nonnull (find_stream (trace, trace->processes[pb].group, 0, 7));
  track = find_stream (trace, trace->processes[pa].group, 0, -1);
  g_assert_nonnull (track);
  g_assert_cmpuint (track->n_slices, ==, 1);

  /* NVTX: push/pop nests, start/end overlaps, domains name categories,
   * registered strings name ranges, an open range lasts to the end. */
  track = nvtx_track (trace, a);
  g_assert_nonnull (track);
  g_assert_cmpuint (track->n_slices, ==, 3);
  g_assert_cmpstr (ks_trace_string (trace, track->name_id[0]), ==, "outer");
  g_assert_cmpstr (ks_trace_string (trace, track->category[0]), ==, "nvtx");
  g_assert_cmpuint (track->depth[0], ==, 0);
  g_assert_cmpstr (ks_trace_string (trace, track->name_id[1]), ==, "Registered range");
  g_assert_cmpstr (ks_trace_string (trace, track->category[1]), ==, "MyLib");
  g_assert_cmpuint (track->depth[1], ==, 1);
  g_assert_cmpstr (ks_trace_string (trace, track->name_id[2]), ==, "async");
  g_assert_cmpint (track->end[2] - track->start[2], ==, 1500);
  g_assert_cmpuint (track->parent, ==, trace->threads[a].track);
  track = nvtx_track (trace, b1);
  g_assert_cmpuint (track->n_slices, ==, 1);
  g_assert_cmpint (track->end[0] + trace->origin_ns, ==, 3000);
  g_assert_nonnull (strstr (ks_trace_get_metadata (trace, "warnings"), "never closed"));

  g_assert_cmpuint (trace->n_instants, ==, 1);
  g_assert_cmpstr (ks_trace_string (trace, trace->instants[0].name), ==, "checkpoint");
  g_assert_cmpint (trace->instants[0].ts + trace->origin_ns, ==, 1800);
  g_assert_cmpuint (trace->instants[0].track, ==, nvtx_track (trace, a)->id);
  g_assert_cmpuint (trace->instants[0].process, ==, pa);

  /* Times from the first event (OSRT at 100); the wall clock follows. */
  g_assert_cmpint (trace->origin_ns, ==, 100);
  g_assert_cmpint (trace->duration_ns, ==, 3000 - 100);
  g_assert_cmpint (trace->start_utc_ns, ==, G_GINT64_CONSTANT (1600000000000000100));

  g_assert_cmpuint (trace->n_gpus, ==, 1);
  g_assert_cmpuint (trace->gpus[0].max_threads_per_sm, ==, 48 * 32);
  g_assert_cmpuint (trace->gpus[0].compute_minor, ==, 5);

  if (v2)
    {
      g_assert_cmpint (trace->memory_events[0].bytes, ==, 65536);
      g_assert_cmpint (trace->memory_events[1].bytes, ==, -65536);
      g_assert_cmpint (trace->memory_events[1].total_allocated, ==, -1);
    }
  else
    {
      const KsCounter *c = &trace->counters[0];

      g_assert_cmpuint (trace->n_counters, ==, 1);
      g_assert_cmpstr (ks_trace_string (trace, c->name), ==, "SMs Active [Throughput %]");
      g_assert_cmpstr (ks_trace_string (trace, c->unit), ==, "Throughput %");
      g_assert_cmpint (c->device, ==, 0);
      g_assert_cmpfloat (c->value[0], ==, 10);
      g_assert_cmpfloat (c->value[1], ==, 40);
      g_assert_cmpfloat (c->value[2], ==, 85);
      /* The sample of an undeclared metric is reported, not invented. */
      g_assert_nonnull (strstr (ks_trace_get_metadata (trace, "warnings"), "skipped"));
    }
}

static void
test_export (gconstpointer data)
{
  const char *dump = data;
  gboolean v2 = strstr (dump, "2.9.1") != NULL;
  g_autofree char *path = make_export (dump, !v2);
  g_autofree char *kscope = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsTrace) back = NULL;
  g_autoptr(GFile) out = NULL;

  if (path == NULL)
    {
      g_test_skip ("the Nsight schema dumps of the corpus (KS_SHARED_DIR) are absent");
      return;
    }

  trace = load (path, &error);
  g_assert_no_error (error);
  check_export (trace, v2);

  /* Saved as .kscope, it reads back the same. */
  kscope = temp_path ("export.kscope");
  out = g_file_new_for_path (kscope);
  g_assert_true (ks_kscope_write (trace, out, NULL, NULL, &error));
  g_assert_no_error (error);
  back = load (kscope, &error);
  g_assert_no_error (error);
  assert_traces_equal (trace, back, FALSE);

  remove_path (kscope);
  remove_path (path);
}

/* An export whose TARGET_INFO_GPU has 300,000 rows (a hostile file; it
 * took 33 s while GPUs were looked up one by one): every device, in order,
 * a later row of a device replacing an earlier one, and the kernels on
 * their streams. */
static void
test_many_gpus (void)
{
  g_autofree char *path = make_export ("nsys-2024.6.2_schema-3.16.1.sql", FALSE);
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  KsTraceCounts counts;
  const KsGpu *gpu;
  sqlite3 *db = NULL;

  if (path == NULL)
    {
      g_test_skip ("the Nsight schema dumps of the corpus (KS_SHARED_DIR) are absent");
      return;
    }

  g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);
  /* Devices 300000 down to 1 (the export's device 0 stays), then 1000
   * of them again with other properties. */
  exec_sql (db,
            "WITH RECURSIVE n(i) AS (SELECT 300000 UNION ALL SELECT i - 1 FROM n WHERE i > 1)"
            " INSERT INTO TARGET_INFO_GPU (vmId, id, name, totalMemory, smCount, maxWarpsPerSm,"
            " threadsPerWarp, computeMajor, computeMinor, maxThreadsPerBlock)"
            " SELECT 281474976710656, i, 'GPU ' || i, i * 1000, i % 200, 64, 32, 9, 0, 1024 FROM n;"
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 7 FROM n WHERE i < 6994)"
            " INSERT INTO TARGET_INFO_GPU (vmId, id, name, totalMemory, smCount, maxWarpsPerSm,"
            " threadsPerWarp, computeMajor, computeMinor, maxThreadsPerBlock)"
            " SELECT 281474976710656, i, 'Replaced ' || i, 1, 1, 48, 32, 8, 6, 512 FROM n;");
  g_assert_cmpint (sqlite3_changes (db), ==, 1000);
  sqlite3_close (db);

  trace = load (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (trace->n_gpus, ==, 300001);
  for (guint32 i = 0; i < trace->n_gpus; i++)
    g_assert_cmpint (trace->gpus[i].device, ==, (gint32) i);

  gpu = ks_trace_find_gpu (trace, 0);
  g_assert_true (gpu == &trace->gpus[0]);
  g_assert_cmpstr (ks_trace_string (trace, gpu->name), ==, "Test GPU");
  g_assert_cmpuint (gpu->sm_count, ==, 80);

  gpu = ks_trace_find_gpu (trace, 123457);
  g_assert_nonnull (gpu);
  g_assert_cmpint (gpu->device, ==, 123457);
  g_assert_cmpstr (ks_trace_string (trace, gpu->name), ==, "GPU 123457");
  g_assert_cmpuint (gpu->total_memory, ==, G_GUINT64_CONSTANT (123457000));
  g_assert_cmpuint (gpu->sm_count, ==, 57);
  g_assert_cmpuint (gpu->max_threads_per_sm, ==, 64 * 32);

  /* 6994 = 1 + 7 * 999: the last device written twice. */
  gpu = ks_trace_find_gpu (trace, 6994);
  g_assert_cmpstr (ks_trace_string (trace, gpu->name), ==, "Replaced 6994");
  g_assert_cmpuint (gpu->compute_major, ==, 8);
  g_assert_cmpuint (gpu->max_threads_per_block, ==, 512);
  gpu = ks_trace_find_gpu (trace, 6995);
  g_assert_cmpstr (ks_trace_string (trace, gpu->name), ==, "GPU 6995");
  g_assert_cmpuint (gpu->compute_major, ==, 9);

  g_assert_null (ks_trace_find_gpu (trace, 300001));
  g_assert_null (ks_trace_find_gpu (trace, -1));
  g_assert_true (ks_trace_find_gpu (trace, 300000) == &trace->gpus[300000]);

  /* The rest of the export reads as without them. */
  ks_trace_get_counts (trace, &counts);
  g_assert_cmpuint (counts.by_kind[KS_SLICE_KERNEL], ==, 3);
  g_assert_cmpuint (counts.by_kind[KS_SLICE_MEMCPY], ==, 1);

  remove_path (path);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/sqlite/nsys/cloverleaf", test_cloverleaf);
  g_test_add_func ("/sqlite/nsys/loader", test_loader_dispatch);
  g_test_add_func ("/sqlite/nsys/corpus", test_corpus);
  g_test_add_data_func ("/sqlite/nsys/schema-2.9.1", "nsys-2022.2.1_schema-2.9.1.sql", test_export);
  g_test_add_data_func ("/sqlite/nsys/schema-3.16.1", "nsys-2024.6.2_schema-3.16.1.sql", test_export);
  g_test_add_func ("/sqlite/nsys/many-gpus", test_many_gpus);

  return g_test_run ();
}
