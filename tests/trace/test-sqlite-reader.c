/* test-sqlite-reader.c: Nsight Systems exports, .kscope files from both writers, bad SQLite input
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
#include "ks-kscope-schema.h"
#include "ks-kscope-writer.h"
#include "ks-record-writer.h"
#include "ks-sqlite-reader.h"
#include "ks-trace-loader.h"

#include "test-sqlite-compare.h"
#include "test-sqlite-util.h"

#define GPID(vm, pid)       (((gint64)(vm) << 48) | ((gint64)(pid) << 24))
#define GTID(vm, pid, tid)  (GPID (vm, pid) | (tid))

static char *
shared_path (const char *first,
             ...)
{
  const char *shared = g_getenv ("KS_SHARED_DIR");
  va_list args;
  char *rest, *path;

  if (shared == NULL)
    return NULL;

  va_start (args, first);
  rest = g_build_filename_valist (first, &args);
  va_end (args);
  path = g_build_filename (shared, rest, NULL);
  g_free (rest);

  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    g_clear_pointer (&path, g_free);
  return path;
}

static char *
cloverleaf_path (void)
{
  return shared_path ("corpus", "pipit", "cloverleaf-nsys", "perlmutter-cloverleaf-cuda.sqlite", NULL);
}

static char *
temp_path (const char *name)
{
  g_autofree char *dir = g_dir_make_tmp ("ks-sqlite-XXXXXX", NULL);

  g_assert_nonnull (dir);
  return g_build_filename (dir, name, NULL);
}

static void
remove_path (const char *path)
{
  g_autofree char *dir = g_path_get_dirname (path);

  g_unlink (path);
  g_rmdir (dir);
}

static KsTrace *
load (const char  *path,
      GError     **error)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);

  return ks_sqlite_reader_load (file, NULL, NULL, error);
}

static const KsTrack *
find_stream (KsTrace *trace,
             guint32  process_group,
             gint32   device,
             gint64   stream)
{
  for (guint32 t = 0; t < trace->n_tracks; t++)
    {
      const KsTrack *track = &trace->tracks[t];

      if (track->kind == KS_TRACK_STREAM && track->group == process_group &&
          track->device == device && track->stream == stream)
        return track;
    }
  return NULL;
}

static guint
count_named (KsTrace    *trace,
             KsSliceKind kind,
             const char *name)
{
  guint n = 0;

  for (guint32 t = 0; t < trace->n_tracks; t++)
    for (guint32 i = 0; i < trace->tracks[t].n_slices; i++)
      if (trace->tracks[t].slice_kind[i] == kind &&
          strcmp (ks_trace_string (trace, trace->tracks[t].name_id[i]), name) == 0)
        n++;
  return n;
}

static gint64
sum_duration (KsTrace    *trace,
              KsSliceKind kind)
{
  gint64 sum = 0;

  for (guint32 t = 0; t < trace->n_tracks; t++)
    for (guint32 i = 0; i < trace->tracks[t].n_slices; i++)
      if (trace->tracks[t].slice_kind[i] == kind)
        sum += trace->tracks[t].end[i] - trace->tracks[t].start[i];
  return sum;
}

static guint32
find_thread (KsTrace *trace,
             gint64   tid)
{
  for (guint32 t = 0; t < trace->n_threads; t++)
    if (trace->threads[t].tid == tid)
      return t;
  return KS_NO_INDEX;
}

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

  g_test_add_func ("/sqlite/nsys/cloverleaf", test_cloverleaf);
  g_test_add_func ("/sqlite/nsys/loader", test_loader_dispatch);
  g_test_add_func ("/sqlite/nsys/corpus", test_corpus);
  g_test_add_func ("/sqlite/kscope/recorder", test_recorder_file);
  g_test_add_func ("/sqlite/kscope/hot-journal", test_hot_journal);
  g_test_add_func ("/sqlite/kscope/hot-journal-spilled", test_hot_journal_spilled);
  g_test_add_func ("/sqlite/kscope/schema/recorder-and-writer", test_same_schema);
  g_test_add_func ("/sqlite/kscope/schema/cut-short", test_cut_short);
  g_test_add_func ("/sqlite/kscope/diagnostics-severity", test_diagnostics_severity);
  g_test_add_func ("/sqlite/kscope/shared-callchains", test_shared_callchains);
  g_test_add_data_func ("/sqlite/nsys/schema-2.9.1", "nsys-2022.2.1_schema-2.9.1.sql", test_export);
  g_test_add_data_func ("/sqlite/nsys/schema-3.16.1", "nsys-2024.6.2_schema-3.16.1.sql", test_export);
  g_test_add_func ("/sqlite/nsys/many-gpus", test_many_gpus);
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
