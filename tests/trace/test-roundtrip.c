/* test-roundtrip.c: model -> .kscope -> model
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
#include "ks-trace-builder.h"

#include "test-sqlite-compare.h"

static char *
temp_path (const char *name)
{
  g_autofree char *dir = g_dir_make_tmp ("ks-roundtrip-XXXXXX", NULL);

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
save_and_load (KsTrace    *trace,
               const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(KsProgress) progress = ks_progress_new ();
  KsTrace *loaded;

  g_assert_true (ks_kscope_write (trace, file, progress, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (ks_progress_get_fraction (progress), ==, 1.0);

  loaded = ks_sqlite_reader_load (file, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (loaded);
  g_assert_cmpint (loaded->format, ==, KS_FORMAT_KSCOPE);
  return loaded;
}

/* Writes, reads, compares; then writes what was read and compares again:
 * a second generation must be identical, provenance included. */
static KsTrace *
assert_round_trip (KsTrace *trace)
{
  g_autofree char *path = temp_path ("trace.kscope");
  g_autofree char *path2 = temp_path ("again.kscope");
  g_autoptr(KsTrace) first = NULL;
  KsTrace *second;

  first = save_and_load (trace, path);
  assert_traces_equal (trace, first, FALSE);

  second = save_and_load (first, path2);
  assert_traces_equal (first, second, TRUE);

  remove_path (path);
  remove_path (path2);
  return second;
}

/* A model with one of everything, including what Nsight tables cannot
 * say (string pids, huge tids, arguments, unusual categories). */
static KsTrace *
build_everything (void)
{
  KsTraceBuilder *b = ks_trace_builder_new (KS_FORMAT_CHROME_JSON);
  const gint64 T = G_GINT64_CONSTANT (1700000000000000000);
  guint32 p_main, p_str, p_big, p_neg, p_gpu, p_other;
  guint32 t_main, t_worker, t_strtid, t_bigtid, t_other;
  guint32 tr_main, tr_worker, tr_nvtx, tr_async, tr_stream, tr_stream2, tr_ann, tr_nostream, tr_other, tr_other_stream;
  guint32 args1, args2, args3;
  KsGpuInfo kinfo = { 0 }, cinfo = { 0 }, sinfo = { 0 }, odd = { 0 };
  KsGpu gpu = { 0 };
  KsMemoryEvent mev = { 0 };
  KsInstant inst = { 0 };
  guint32 c_util, c_mem;
  guint32 runtime, driver, nvtx_dom;

  ks_trace_builder_set_start_utc (b, G_GINT64_CONSTANT (1000));
  ks_trace_builder_set_metadata (b, "traceName", "everything");
  ks_trace_builder_set_metadata (b, "schemaVersion", "1");
  ks_trace_builder_add_warning (b, "first warning");
  ks_trace_builder_add_warning (b, "second warning");

  p_main = ks_trace_builder_get_process (b, 455);
  ks_trace_builder_set_process_info (b, p_main, "python3", "CPU", NULL, 455);
  p_str = ks_trace_builder_get_process (b, 987654321);
  ks_trace_builder_set_process_info (b, p_str, "Spans", NULL, "Spans", 10);
  p_big = ks_trace_builder_get_process (b, G_GINT64_CONSTANT (40000000));
  p_neg = ks_trace_builder_get_process (b, -1);
  p_gpu = ks_trace_builder_get_process (b, 0);
  ks_trace_builder_set_process_info (b, p_gpu, "python3", "GPU 0", NULL, 5000000);

  t_main = ks_trace_builder_get_thread (b, p_main, 455);
  ks_trace_builder_set_thread_info (b, t_main, "python3", NULL, 1);
  t_worker = ks_trace_builder_get_thread (b, p_main, 486);
  ks_trace_builder_set_thread_info (b, t_worker, "pt_autograd_0", NULL, 2);
  t_strtid = ks_trace_builder_get_thread (b, p_str, 77);
  ks_trace_builder_set_thread_info (b, t_strtid, NULL, "PyTorch Profiler", -3);
  t_bigtid = ks_trace_builder_get_thread (b, p_big, G_GINT64_CONSTANT (140234567890123));
  (void)ks_trace_builder_get_thread (b, p_neg, 0);

  runtime = ks_trace_builder_intern (b, "cuda_runtime");
  driver = ks_trace_builder_intern (b, "cuda_driver");
  args1 = ks_trace_builder_add_args (b, "{\"External id\": 7, \"cbid\": 211}", strlen ("{\"External id\": 7, \"cbid\": 211}"));
  args2 = ks_trace_builder_add_args (b, "{\"grid\": [4, 2, 1]}", strlen ("{\"grid\": [4, 2, 1]}"));
  args3 = ks_trace_builder_add_args (b, "{\"x\": \"\\u00e9\"}", strlen ("{\"x\": \"\\u00e9\"}"));

  /* Thread slices: nested operators, a CUDA call under them, OS runtime. */
  tr_main = ks_trace_builder_get_thread_track (b, t_main);
  ks_trace_builder_set_track_sort_index (b, tr_main, -5);
  ks_trace_builder_add_slice (b, tr_main, T + 0, T + 1000, KS_SLICE_USER_ANNOTATION,
                              ks_trace_builder_intern (b, "ProfilerStep#1"),
                              ks_trace_builder_intern (b, "user_annotation"), 0, 0, 0, NULL);
  ks_trace_builder_add_slice (b, tr_main, T + 0, T + 500, KS_SLICE_CPU_OP,
                              ks_trace_builder_intern (b, "aten::linear"),
                              ks_trace_builder_intern (b, "cpu_op"), 0, 7, args1, NULL);
  ks_trace_builder_add_slice (b, tr_main, T + 0, T + 400, KS_SLICE_CPU_OP,
                              ks_trace_builder_intern (b, "aten::addmm"),
                              ks_trace_builder_intern (b, "cpu_op"), 0, 8, 0, NULL);
  ks_trace_builder_add_slice (b, tr_main, T + 100, T + 150, KS_SLICE_CUDA_RUNTIME,
                              ks_trace_builder_intern (b, "cudaLaunchKernel"), runtime, 41, 8, args1, NULL);
  ks_trace_builder_add_slice (b, tr_main, T + 160, T + 170, KS_SLICE_CUDA_DRIVER,
                              ks_trace_builder_intern (b, "cuLaunchKernel"), driver, 42, 0, 0, NULL);
  ks_trace_builder_add_slice (b, tr_main, T + 180, T + 190, KS_SLICE_CUDA_RUNTIME,
                              ks_trace_builder_intern (b, "cudaMemcpyAsync"),
                              ks_trace_builder_intern (b, "Runtime"), 43, 0, 0, NULL);
  ks_trace_builder_add_slice (b, tr_main, T + 200, T + 210, KS_SLICE_CUDA_RUNTIME,
                              ks_trace_builder_intern (b, "cudaMemsetAsync"), runtime, 44, 0, 0, NULL);
  ks_trace_builder_add_slice (b, tr_main, T + 220, T + 230, KS_SLICE_CUDA_RUNTIME,
                              ks_trace_builder_intern (b, "cudaStreamSynchronize"), runtime, 45, 0, 0, NULL);
  ks_trace_builder_add_slice (b, tr_main, T + 600, T + 700, KS_SLICE_OSRT,
                              ks_trace_builder_intern (b, "pthread_cond_wait"),
                              ks_trace_builder_intern (b, "osrt"), 0, 0, 0, NULL);
  ks_trace_builder_add_slice (b, tr_main, T + 710, T + 720, KS_SLICE_OSRT,
                              ks_trace_builder_intern (b, "read"),
                              ks_trace_builder_intern (b, "syscalls"), 3, 4, args3, NULL);
  ks_trace_builder_add_slice (b, tr_main, T + 730, T + 730, KS_SLICE_GENERIC,
                              ks_trace_builder_intern (b, "zero"), 0, 0, 0, 0, NULL);
  ks_trace_builder_add_slice (b, tr_main, T + 740, T + 750, KS_SLICE_NVTX,
                              ks_trace_builder_intern (b, "nvtx on the thread row"), 0, 0, 0, 0, NULL);
  ks_trace_builder_add_slice (b, tr_main, T + 800, T + 900, KS_SLICE_PYTHON,
                              ks_trace_builder_intern (b, "train.py(12): step"),
                              ks_trace_builder_intern (b, "python_function"), 0, 0, 0, NULL);

  tr_worker = ks_trace_builder_get_thread_track (b, t_worker);
  ks_trace_builder_add_slice (b, tr_worker, T + 300, T + 600, KS_SLICE_CPU_OP,
                              ks_trace_builder_intern (b, "autograd::engine::evaluate_function: AddmmBackward0"),
                              ks_trace_builder_intern (b, "cpu_op"), 0, 9, 0, NULL);
  ks_trace_builder_add_slice (b, tr_worker, T + 300, T + 600, KS_SLICE_CPU_OP,
                              ks_trace_builder_intern (b, "AddmmBackward0"),
                              ks_trace_builder_intern (b, "cpu_op"), 0, 10, 0, NULL);

  /* NVTX: nested, overlapping (start/end) and in a named domain. */
  tr_nvtx = ks_trace_builder_get_nvtx_track (b, t_worker);
  nvtx_dom = ks_trace_builder_intern (b, "MyDomain");
  ks_trace_builder_add_slice (b, tr_nvtx, T + 300, T + 500, KS_SLICE_NVTX,
                              ks_trace_builder_intern (b, "forward"), ks_trace_builder_intern (b, "nvtx"), 0, 0, 0, NULL);
  ks_trace_builder_add_slice (b, tr_nvtx, T + 350, T + 550, KS_SLICE_NVTX,
                              ks_trace_builder_intern (b, "overlaps"), nvtx_dom, 0, 0, args2, NULL);
  ks_trace_builder_add_slice (b, tr_nvtx, T + 360, T + 370, KS_SLICE_NVTX,
                              ks_trace_builder_intern (b, "empty category"), 0, 0, 0, 0, NULL);
  ks_trace_builder_add_slice (b, tr_nvtx, T + 380, T + 390, KS_SLICE_CPU_OP,
                              ks_trace_builder_intern (b, "not nvtx"), 0, 0, 0, 0, NULL);

  tr_async = ks_trace_builder_get_async_track (b, p_str, "async lane");
  ks_trace_builder_add_slice (b, tr_async, T + 10, T + 990, KS_SLICE_ASYNC,
                              ks_trace_builder_intern (b, "request"),
                              ks_trace_builder_intern (b, "async"), 0, 0, args3, NULL);

  (void)ks_trace_builder_get_thread_track (b, t_strtid);
  ks_trace_builder_add_slice (b, ks_trace_builder_get_thread_track (b, t_bigtid), T + 20, T + 30,
                              KS_SLICE_GENERIC, ks_trace_builder_intern (b, "big tid"), 0, 0, 0, 0, NULL);

  /* GPU: kernel, copies, a sync on no stream, annotations. */
  kinfo.kernel.grid[0] = 4; kinfo.kernel.grid[1] = 2; kinfo.kernel.grid[2] = 1;
  kinfo.kernel.block[0] = 256; kinfo.kernel.block[1] = 1; kinfo.kernel.block[2] = 1;
  kinfo.kernel.registers = 32;
  kinfo.kernel.shared_memory = 4096;
  tr_stream = ks_trace_builder_get_stream_track (b, 0, 7);
  ks_trace_builder_set_track_sort_index (b, tr_stream, 7);
  ks_trace_builder_add_slice (b, tr_stream, T + 155, T + 255, KS_SLICE_KERNEL,
                              ks_trace_builder_intern (b, "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float> >(int, float)"),
                              ks_trace_builder_intern (b, "kernel"), 41, 8, args2, &kinfo);
  ks_trace_builder_add_slice (b, tr_stream, T + 260, T + 270, KS_SLICE_KERNEL,
                              ks_trace_builder_intern (b, "triton_kernel"),
                              ks_trace_builder_intern (b, "kernel"), 42, 0, 0, &kinfo);
  cinfo.copy.bytes = G_GUINT64_CONSTANT (5000000000);
  cinfo.copy.copy_kind = KS_COPY_HTOD;
  cinfo.copy.src_kind = KS_MEM_PAGEABLE;
  cinfo.copy.dst_kind = KS_MEM_DEVICE;
  ks_trace_builder_add_slice (b, tr_stream, T + 280, T + 290, KS_SLICE_MEMCPY,
                              ks_trace_builder_intern (b, "Memcpy HtoD (Pageable -> Device)"),
                              ks_trace_builder_intern (b, "gpu_memcpy"), 43, 0, 0, &cinfo);
  cinfo.copy.copy_kind = KS_COPY_DTOD;
  cinfo.copy.src_kind = KS_MEM_UNKNOWN;
  ks_trace_builder_add_slice (b, tr_stream, T + 291, T + 295, KS_SLICE_MEMCPY,
                              ks_trace_builder_intern (b, "Memcpy DtoD (Device -> Device)"),
                              ks_trace_builder_intern (b, "Memcpy"), 0, 0, 0, &cinfo);
  sinfo.copy.bytes = 1024;
  sinfo.copy.dst_kind = KS_MEM_DEVICE;
  sinfo.copy.value = 255;
  ks_trace_builder_add_slice (b, tr_stream, T + 300, T + 310, KS_SLICE_MEMSET,
                              ks_trace_builder_intern (b, "Memset (Device)"),
                              ks_trace_builder_intern (b, "gpu_memset"), 44, 0, 0, &sinfo);
  ks_trace_builder_add_slice (b, tr_stream, T + 320, T + 330, KS_SLICE_SYNC,
                              ks_trace_builder_intern (b, "Stream Sync"),
                              ks_trace_builder_intern (b, "cuda_sync"), 45, 0, 0, NULL);
  ks_trace_builder_add_slice (b, tr_stream, T + 340, T + 345, KS_SLICE_GENERIC,
                              ks_trace_builder_intern (b, "cuda_profiler_range"), 0, 0, 0, args2, NULL);
  odd.copy.bytes = 12;
  ks_trace_builder_add_slice (b, tr_stream, T + 346, T + 347, KS_SLICE_MEMSET,
                              ks_trace_builder_intern (b, "my memset"), 0, 0, 0, 0, &odd);

  tr_nostream = ks_trace_builder_get_stream_track (b, 0, -1);
  ks_trace_builder_add_slice (b, tr_nostream, T + 400, T + 450, KS_SLICE_SYNC,
                              ks_trace_builder_intern (b, "Context Sync"),
                              ks_trace_builder_intern (b, "cuda_sync"), 0, 0, 0, NULL);
  ks_trace_builder_add_slice (b, tr_nostream, T + 460, T + 470, KS_SLICE_SYNC,
                              ks_trace_builder_intern (b, "Waiting"),
                              ks_trace_builder_intern (b, "cuda_sync"), 0, 0, 0, NULL);

  tr_ann = ks_trace_builder_get_gpu_annotation_track (b, 0, 7);
  ks_trace_builder_add_slice (b, tr_ann, T + 155, T + 330, KS_SLICE_GPU_ANNOTATION,
                              ks_trace_builder_intern (b, "ProfilerStep#1"),
                              ks_trace_builder_intern (b, "gpu_user_annotation"), 0, 0, 0, NULL);

  tr_stream2 = ks_trace_builder_get_stream_track (b, 1, 20);
  ks_trace_builder_add_slice (b, tr_stream2, T + 500, T + 520, KS_SLICE_KERNEL,
                              ks_trace_builder_intern (b, "orphan_kernel"),
                              ks_trace_builder_intern (b, "kernel"), 99, 0, 0, &kinfo);

  /* A second group (a second file of a folder) reusing a correlation id
   * and the same device and stream: it links within its own group only. */
  ks_trace_builder_set_group (b, 1);
  p_other = ks_trace_builder_get_process (b, 600);
  t_other = ks_trace_builder_get_thread (b, p_other, 600);
  tr_other = ks_trace_builder_get_thread_track (b, t_other);
  ks_trace_builder_add_slice (b, tr_other, T + 100, T + 120, KS_SLICE_CUDA_RUNTIME,
                              ks_trace_builder_intern (b, "cudaLaunchKernel"), runtime, 41, 0, 0, NULL);
  tr_other_stream = ks_trace_builder_get_stream_track (b, 0, 7);
  ks_trace_builder_add_slice (b, tr_other_stream, T + 130, T + 140, KS_SLICE_KERNEL,
                              ks_trace_builder_intern (b, "other_kernel"),
                              ks_trace_builder_intern (b, "kernel"), 41, 0, 0, &kinfo);
  /* A third group with GPU work and no process at all. */
  ks_trace_builder_set_group (b, 2);
  ks_trace_builder_add_slice (b, ks_trace_builder_get_stream_track (b, 0, -1), T + 600, T + 610, KS_SLICE_SYNC,
                              ks_trace_builder_intern (b, "Context Sync"),
                              ks_trace_builder_intern (b, "cuda_sync"), 0, 0, 0, NULL);
  ks_trace_builder_set_group (b, 0);

  /* Flows other than launches, bound to a parent that shares its start
   * with its child and to a zero-length slice. */
  ks_trace_builder_add_flow (b, tr_main, T + 450, tr_worker, T + 300,
                             ks_trace_builder_intern (b, "fwdbwd"), KS_FLOW_OTHER);
  ks_trace_builder_add_flow (b, tr_main, T + 730, tr_async, T + 500,
                             ks_trace_builder_intern (b, "ipc"), KS_FLOW_OTHER);
  ks_trace_builder_add_flow (b, tr_nvtx, T + 352, tr_stream, T + 342,
                             ks_trace_builder_intern (b, "custom"), KS_FLOW_LAUNCH);

  gpu.device = 0;
  gpu.name = ks_trace_builder_intern (b, "NVIDIA H200");
  gpu.total_memory = G_GUINT64_CONSTANT (150000000000);
  gpu.sm_count = 132;
  gpu.compute_major = 9;
  gpu.compute_minor = 0;
  gpu.max_threads_per_block = 1024;
  gpu.max_threads_per_sm = 2048;
  gpu.registers_per_block = 65536;
  gpu.registers_per_sm = 65536;
  gpu.shared_memory_per_block = 49152;
  gpu.shared_memory_per_sm = 233472;
  gpu.warp_size = 32;
  ks_trace_builder_add_gpu (b, &gpu);
  gpu.device = 1;
  gpu.max_threads_per_sm = 1000;  /* not a multiple of the warp size */
  ks_trace_builder_add_gpu (b, &gpu);

  c_util = ks_trace_builder_get_counter (b, "GPU utilization", "%", 0, KS_NO_INDEX);
  c_mem = ks_trace_builder_get_counter (b, "Allocated", "bytes", -1, p_main);
  ks_trace_builder_add_counter_sample (b, c_util, T + 0, 12.5);
  ks_trace_builder_add_counter_sample (b, c_util, T + 500, 99.75);
  ks_trace_builder_add_counter_sample (b, c_mem, T + 250, 1e12);

  mev.ts = T + 140;
  mev.address = G_GUINT64_CONSTANT (0xffff800000001000);
  mev.bytes = 4096;
  mev.total_allocated = 8192;
  mev.total_reserved = -1;
  mev.thread = t_main;
  mev.device = 0;
  ks_trace_builder_add_memory_event (b, &mev);
  mev.ts = T + 145;
  mev.bytes = -4096;
  mev.total_allocated = -1;
  mev.thread = KS_NO_INDEX;
  mev.device = -1;
  ks_trace_builder_add_memory_event (b, &mev);

  inst.ts = T + 5;
  inst.track = KS_NO_INDEX;
  inst.process = KS_NO_INDEX;
  inst.name = ks_trace_builder_intern (b, "Iteration Start: PyTorch Profiler");
  inst.category = ks_trace_builder_intern (b, "Trace");
  ks_trace_builder_add_instant (b, &inst);
  inst.ts = T + 5;
  inst.track = tr_main;
  inst.process = p_main;
  inst.name = ks_trace_builder_intern (b, "mark");
  inst.category = 0;
  inst.args = args3;
  ks_trace_builder_add_instant (b, &inst);
  inst.ts = T + 7;
  inst.track = tr_async;
  inst.process = KS_NO_INDEX;
  inst.args = 0;
  ks_trace_builder_add_instant (b, &inst);
  inst.ts = T + 8;
  inst.track = KS_NO_INDEX;
  inst.process = p_str;
  ks_trace_builder_add_instant (b, &inst);

  /* Python samples on two threads; a frame with no line */
  {
    guint32 file = ks_trace_builder_intern (b, "/work/train.py");
    KsSampleFrame outer = { ks_trace_builder_intern (b, "main"), file, 90 };
    KsSampleFrame step = { ks_trace_builder_intern (b, "Trainer.step"), file, 57 };
    KsSampleFrame native = { ks_trace_builder_intern (b, "<native>"), 0, 0 };
    KsSampleFrame stack[3] = { native, step, outer };

    for (guint i = 0; i < 5; i++)
      ks_trace_builder_add_sample (b, t_main, T + 1000 * i, stack + (i % 3 == 0 ? 0 : 1), i % 3 == 0 ? 3 : 2);
    ks_trace_builder_add_sample (b, t_worker, T + 20, &outer, 1);
  }

  return ks_trace_builder_finish (b, NULL, NULL);
}

static void
test_hand_built (void)
{
  g_autoptr(KsTrace) trace = build_everything ();
  g_autoptr(KsTrace) back = NULL;
  KsTraceCounts counts;

  g_assert_nonnull (trace);

  /* The model itself: launch flows within each group, plus three others. */
  ks_trace_get_counts (trace, &counts);
  g_assert_cmpuint (counts.launch_flows, ==, 6 + 1);
  g_assert_cmpuint (counts.flows, ==, 6 + 3);
  g_assert_cmpuint (counts.samples, ==, 6);

  back = assert_round_trip (trace);
  g_assert_cmpstr (ks_trace_get_metadata (back, "source_format"), ==, "chrome-json");
  g_assert_cmpstr (ks_trace_get_metadata (back, "warnings"), ==, "first warning\nsecond warning");
}

/* The file speaks Nsight's language: SQL written for exports runs on it. */
static void
test_nsight_sql (void)
{
  g_autoptr(KsTrace) trace = build_everything ();
  g_autofree char *path = temp_path ("sql.kscope");
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  sqlite3 *db = NULL;
  sqlite3_stmt *stmt = NULL;

  g_assert_true (ks_kscope_write (trace, file, NULL, NULL, &error));
  g_assert_no_error (error);

  g_assert_cmpint (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);

  g_assert_cmpint (sqlite3_prepare_v2 (db, "PRAGMA application_id", -1, &stmt, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_step (stmt), ==, SQLITE_ROW);
  g_assert_cmpint (sqlite3_column_int64 (stmt, 0), ==, 0x4B53434F);
  sqlite3_finalize (stmt);

  g_assert_cmpint (sqlite3_prepare_v2 (db, "PRAGMA user_version", -1, &stmt, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_step (stmt), ==, SQLITE_ROW);
  g_assert_cmpint (sqlite3_column_int64 (stmt, 0), ==, 1);
  sqlite3_finalize (stmt);

  /* Kernel <- launching call, joined the way Nsight's reports join. */
  g_assert_cmpint (sqlite3_prepare_v2 (db,
                                       "SELECT k.start, r.start, rn.value, kn.value, sn.value, k.gridX, k.blockX "
                                       "FROM CUPTI_ACTIVITY_KIND_KERNEL k "
                                       "JOIN CUPTI_ACTIVITY_KIND_RUNTIME r ON r.correlationId = k.correlationId "
                                       " AND k.globalPid = (r.globalTid & 0xFFFFFFFFFF000000) "
                                       "JOIN StringIds rn ON rn.id = r.nameId "
                                       "JOIN StringIds kn ON kn.id = k.demangledName "
                                       "JOIN StringIds sn ON sn.id = k.shortName "
                                       "ORDER BY k.start", -1, &stmt, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_step (stmt), ==, SQLITE_ROW);
  g_assert_cmpint (sqlite3_column_int64 (stmt, 0), ==, 130);
  g_assert_cmpstr ((const char *)sqlite3_column_text (stmt, 2), ==, "cudaLaunchKernel");
  g_assert_cmpstr ((const char *)sqlite3_column_text (stmt, 3), ==, "other_kernel");
  g_assert_cmpint (sqlite3_step (stmt), ==, SQLITE_ROW);
  g_assert_cmpint (sqlite3_column_int64 (stmt, 0), ==, 155);
  g_assert_cmpint (sqlite3_column_int64 (stmt, 1), ==, 100);
  g_assert_cmpstr ((const char *)sqlite3_column_text (stmt, 4), ==, "vectorized_elementwise_kernel");
  g_assert_cmpint (sqlite3_column_int64 (stmt, 5), ==, 4);
  g_assert_cmpint (sqlite3_column_int64 (stmt, 6), ==, 256);
  g_assert_cmpint (sqlite3_step (stmt), ==, SQLITE_ROW);
  g_assert_cmpstr ((const char *)sqlite3_column_text (stmt, 2), ==, "cuLaunchKernel");
  g_assert_cmpint (sqlite3_step (stmt), ==, SQLITE_DONE);
  sqlite3_finalize (stmt);

  /* Nsight's enum values: Pageable = 0, Device = 2. */
  g_assert_cmpint (sqlite3_prepare_v2 (db,
                                       "SELECT m.bytes, o.label, s.label, d.label FROM CUPTI_ACTIVITY_KIND_MEMCPY m "
                                       "JOIN ENUM_CUDA_MEMCPY_OPER o ON o.id = m.copyKind "
                                       "JOIN ENUM_CUDA_MEM_KIND s ON s.id = m.srcKind "
                                       "JOIN ENUM_CUDA_MEM_KIND d ON d.id = m.dstKind ORDER BY m.start",
                                       -1, &stmt, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_step (stmt), ==, SQLITE_ROW);
  g_assert_cmpint (sqlite3_column_int64 (stmt, 0), ==, G_GINT64_CONSTANT (5000000000));
  g_assert_cmpstr ((const char *)sqlite3_column_text (stmt, 1), ==, "Host-to-Device");
  g_assert_cmpstr ((const char *)sqlite3_column_text (stmt, 2), ==, "Pageable");
  g_assert_cmpstr ((const char *)sqlite3_column_text (stmt, 3), ==, "Device");
  sqlite3_finalize (stmt);

  /* Thread ids decode as documented; a string pid got a synthetic id. */
  g_assert_cmpint (sqlite3_prepare_v2 (db,
                                       "SELECT globalTid / 0x1000000 % 0x1000000, globalTid % 0x1000000, pid, tid, originalPid, originalTid, role "
                                       "FROM KS_THREADS ORDER BY rowid", -1, &stmt, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_step (stmt), ==, SQLITE_ROW);
  g_assert_cmpint (sqlite3_column_int64 (stmt, 0), ==, 455);
  g_assert_cmpint (sqlite3_column_int64 (stmt, 1), ==, 455);
  g_assert_cmpstr ((const char *)sqlite3_column_text (stmt, 6), ==, "main");
  g_assert_cmpint (sqlite3_step (stmt), ==, SQLITE_ROW);
  g_assert_cmpstr ((const char *)sqlite3_column_text (stmt, 6), ==, "autograd");
  g_assert_cmpint (sqlite3_step (stmt), ==, SQLITE_ROW);
  g_assert_cmpint (sqlite3_column_int64 (stmt, 0), ==, 0xffffff);
  g_assert_cmpint (sqlite3_column_int64 (stmt, 2), ==, 987654321);
  g_assert_cmpstr ((const char *)sqlite3_column_text (stmt, 4), ==, "Spans");
  g_assert_cmpstr ((const char *)sqlite3_column_text (stmt, 5), ==, "PyTorch Profiler");
  g_assert_cmpint (sqlite3_step (stmt), ==, SQLITE_ROW);
  g_assert_cmpint (sqlite3_column_int64 (stmt, 0), ==, 0xfffffe);
  g_assert_cmpint (sqlite3_column_int64 (stmt, 1), ==, 0xffffff);
  g_assert_cmpint (sqlite3_column_int64 (stmt, 3), ==, G_GINT64_CONSTANT (140234567890123));
  sqlite3_finalize (stmt);

  /* 6 samples of 3 distinct stacks (3, 2 and 1 frames deep): one chain
   * each, shared by its samples through callchainId. */
  g_assert_cmpint (sqlite3_prepare_v2 (db,
                                       "SELECT (SELECT COUNT(*) FROM COMPOSITE_EVENTS), "
                                       "(SELECT COUNT(*) FROM SAMPLING_CALLCHAINS), "
                                       "(SELECT COUNT(DISTINCT id) FROM SAMPLING_CALLCHAINS), "
                                       "(SELECT COUNT(*) FROM COMPOSITE_EVENTS e WHERE NOT EXISTS "
                                       " (SELECT 1 FROM SAMPLING_CALLCHAINS c WHERE c.id = e.callchainId)), "
                                       "(SELECT COUNT(*) FROM COMPOSITE_EVENTS e "
                                       " JOIN SAMPLING_CALLCHAINS c ON c.id = e.callchainId AND c.stackDepth = 0 "
                                       " JOIN StringIds s ON s.id = c.symbol WHERE s.value = 'Trainer.step')",
                                       -1, &stmt, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_step (stmt), ==, SQLITE_ROW);
  g_assert_cmpint (sqlite3_column_int64 (stmt, 0), ==, 6);
  g_assert_cmpint (sqlite3_column_int64 (stmt, 1), ==, 3 + 2 + 1);
  g_assert_cmpint (sqlite3_column_int64 (stmt, 2), ==, 3);
  g_assert_cmpint (sqlite3_column_int64 (stmt, 3), ==, 0);
  g_assert_cmpint (sqlite3_column_int64 (stmt, 4), ==, 3);
  sqlite3_finalize (stmt);

  /* Tables exist only when they have rows; NVTX has its domain. */
  g_assert_cmpint (sqlite3_prepare_v2 (db,
                                       "SELECT (SELECT count(*) FROM sqlite_master WHERE name = 'CUDA_GPU_MEMORY_USAGE_EVENTS'), "
                                       "(SELECT count(*) FROM NVTX_EVENTS WHERE eventType = 75 AND text = 'MyDomain'), "
                                       "(SELECT count(*) FROM NVTX_EVENTS WHERE eventType = 60), "
                                       "(SELECT value FROM KS_META WHERE name = 'producer'), "
                                       "(SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = 'KS_SLICES_thread')",
                                       -1, &stmt, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_step (stmt), ==, SQLITE_ROW);
  g_assert_cmpint (sqlite3_column_int64 (stmt, 0), ==, 0);
  g_assert_cmpint (sqlite3_column_int64 (stmt, 1), ==, 1);
  g_assert_cmpint (sqlite3_column_int64 (stmt, 2), ==, 1);
  g_assert_cmpstr ((const char *)sqlite3_column_text (stmt, 3), ==, "kinescope-cli " PACKAGE_VERSION);
  g_assert_cmpint (sqlite3_column_int64 (stmt, 4), ==, 1);
  sqlite3_finalize (stmt);

  sqlite3_close (db);
  remove_path (path);
}

/* Saving replaces the destination only once the new file is complete. */
static void
test_atomic_write (void)
{
  g_autoptr(KsTrace) trace = build_everything ();
  g_autofree char *path = temp_path ("atomic.kscope");
  g_autofree char *dir = g_path_get_dirname (path);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GFile) bad = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GDir) d = NULL;
  g_autofree char *bad_path = NULL;

  g_assert_true (g_file_set_contents (path, "old contents", -1, NULL));

  g_cancellable_cancel (cancellable);
  g_assert_false (ks_kscope_write (trace, file, NULL, cancellable, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&error);

  {
    g_autofree char *contents = NULL;

    g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
    g_assert_cmpstr (contents, ==, "old contents");
  }

  /* No temporary file was left behind. */
  d = g_dir_open (dir, 0, NULL);
  g_assert_cmpstr (g_dir_read_name (d), ==, "atomic.kscope");
  g_assert_null (g_dir_read_name (d));

  g_assert_true (ks_kscope_write (trace, file, NULL, NULL, &error));
  g_assert_no_error (error);
  {
    g_autofree char *contents = NULL;
    gsize len;

    g_assert_true (g_file_get_contents (path, &contents, &len, NULL));
    g_assert_cmpuint (len, >, 4096);
    g_assert_cmpint (memcmp (contents, "SQLite format 3", 16), ==, 0);
    g_assert_cmpint (memcmp (contents + 68, "KSCO", 4), ==, 0);
  }

  /* A folder that does not exist: an error naming the file. */
  bad_path = g_build_filename (dir, "missing", "x.kscope", NULL);
  bad = g_file_new_for_path (bad_path);
  g_assert_false (ks_kscope_write (trace, bad, NULL, NULL, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "x.kscope"));

  remove_path (path);
}

static void
test_json_fixture (gconstpointer data)
{
  const char *name = data;
  g_autofree char *path = g_build_filename (g_getenv ("KS_FIXTURES_DIR"), name, NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = ks_json_reader_load (file, NULL, NULL, &error);
  g_autoptr(KsTrace) back = NULL;

  g_assert_no_error (error);
  g_assert_nonnull (trace);

  back = assert_round_trip (trace);
  g_assert_cmpstr (ks_trace_get_metadata (back, "source_format"), ==, "kineto-json");
  g_assert_cmpstr (ks_trace_get_metadata (back, "source_name"), ==,
                   ks_trace_get_metadata (trace, "source_name"));
}

static void
test_nsys_export (void)
{
  const char *shared = g_getenv ("KS_SHARED_DIR");
  g_autofree char *path = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsTrace) back = NULL;

  if (shared == NULL)
    {
      g_test_skip ("KS_SHARED_DIR is not set");
      return;
    }
  path = g_build_filename (shared, "corpus", "pipit", "cloverleaf-nsys", "perlmutter-cloverleaf-cuda.sqlite", NULL);
  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("the Nsight export of the corpus is absent");
      return;
    }

  file = g_file_new_for_path (path);
  trace = ks_sqlite_reader_load (file, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (trace->format, ==, KS_FORMAT_NSYS_SQLITE);

  back = assert_round_trip (trace);
  g_assert_cmpstr (ks_trace_get_metadata (back, "source_format"), ==, "nsys-sqlite");
  g_assert_cmpstr (ks_trace_get_metadata (back, "nsys_version"), ==, "2024.5.1.113");
  g_assert_nonnull (g_strrstr (ks_trace_get_metadata (back, "source_name"), "perlmutter-cloverleaf-cuda.sqlite"));
}

/* Every trace of the corpus that loads comes back the same from .kscope:
 * string pids, async rows, counters, flows of every kind, old and new
 * category names. */
static void
test_corpus (void)
{
  const char *shared = g_getenv ("KS_SHARED_DIR");
  g_autofree char *corpus = shared ? g_build_filename (shared, "corpus", NULL) : NULL;
  g_autoptr(GPtrArray) dirs = g_ptr_array_new_with_free_func (g_free);
  guint done = 0;

  if (corpus == NULL || !g_file_test (corpus, G_FILE_TEST_IS_DIR))
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
          g_autoptr(GFile) file = NULL;
          g_autoptr(GError) error = NULL;
          g_autoptr(KsTrace) trace = NULL;
          g_autoptr(KsTrace) back = NULL;

          if (g_file_test (child, G_FILE_TEST_IS_DIR))
            {
              g_ptr_array_add (dirs, g_steal_pointer (&child));
              continue;
            }
          if (!g_str_has_suffix (name, ".json") && !g_str_has_suffix (name, ".json.gz"))
            continue;

          file = g_file_new_for_path (child);
          trace = ks_json_reader_load (file, NULL, NULL, &error);
          if (trace == NULL)
            continue;  /* not a trace: the JSON tests check the message */

          g_test_message ("%s", child);
          back = assert_round_trip (trace);
          done++;
        }
    }

  g_assert_cmpuint (done, >=, 30);
}

static void
cancel_on_progress (KsProgress *progress,
                    gpointer    user_data)
{
  double f = ks_progress_get_fraction (progress);

  if (f > 0.0 && f < 1.0)
    g_cancellable_cancel (user_data);
}

/* Cancelled halfway through, a save leaves the old file and nothing else. */
static void
test_cancel_midway (void)
{
  g_autofree char *json = g_build_filename (g_getenv ("KS_FIXTURES_DIR"), "gpt_3steps.pt.trace.json.gz", NULL);
  g_autofree char *path = temp_path ("midway.kscope");
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *contents = NULL;
  g_autoptr(GFile) in = g_file_new_for_path (json);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = ks_json_reader_load (in, NULL, NULL, &error);
  g_autoptr(KsProgress) progress = ks_progress_new ();
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GDir) d = NULL;

  g_assert_no_error (error);
  g_assert_true (g_file_set_contents (path, "previous", -1, NULL));

  ks_progress_set_notify (progress, cancel_on_progress, g_object_ref (cancellable), g_object_unref);
  g_assert_false (ks_kscope_write (trace, file, progress, cancellable, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);

  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "previous");
  d = g_dir_open (dir, 0, NULL);
  g_assert_cmpstr (g_dir_read_name (d), ==, "midway.kscope");
  g_assert_null (g_dir_read_name (d));

  remove_path (path);
}

typedef struct
{
  const char *path;
  gboolean    created;
} Appear;

static void
create_on_progress (KsProgress *progress,
                    gpointer    user_data)
{
  Appear *appear = user_data;
  double f = ks_progress_get_fraction (progress);

  if (!appear->created && f > 0.0 && f < 1.0)
    {
      g_assert_true (g_file_set_contents (appear->path, "appeared meanwhile", -1, NULL));
      appear->created = TRUE;
    }
}

/* Without KS_KSCOPE_WRITE_REPLACE a save never replaces a file, even one
 * that another program creates while the trace is being written. */
static void
test_no_replace (void)
{
  g_autofree char *json = g_build_filename (g_getenv ("KS_FIXTURES_DIR"), "gpt_3steps.pt.trace.json.gz", NULL);
  g_autofree char *path = temp_path ("noreplace.kscope");
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *contents = NULL;
  g_autoptr(GFile) in = g_file_new_for_path (json);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = ks_json_reader_load (in, NULL, NULL, &error);
  g_autoptr(KsTrace) back = NULL;
  g_autoptr(KsProgress) progress = ks_progress_new ();
  g_autoptr(GDir) d = NULL;
  Appear appear = { path, FALSE };

  g_assert_no_error (error);

  /* Where nothing is, it writes. */
  g_assert_true (ks_kscope_write_full (trace, file, KS_KSCOPE_WRITE_NONE, NULL, NULL, &error));
  g_assert_no_error (error);
  back = ks_sqlite_reader_load (file, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (back->n_tracks, ==, trace->n_tracks);
  g_assert_cmpstr (ks_trace_get_metadata (back, "complete"), ==, "1");

  /* An existing file is left alone. */
  g_assert_true (g_file_set_contents (path, "older", -1, NULL));
  g_assert_false (ks_kscope_write_full (trace, file, KS_KSCOPE_WRITE_NONE, NULL, NULL, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS);
  g_assert_nonnull (strstr (error->message, "noreplace.kscope"));
  g_clear_error (&error);
  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "older");
  g_clear_pointer (&contents, g_free);

  /* So is one that appears while the trace is written. */
  g_unlink (path);
  ks_progress_set_notify (progress, create_on_progress, &appear, NULL);
  g_assert_false (ks_kscope_write_full (trace, file, KS_KSCOPE_WRITE_NONE, progress, NULL, &error));
  g_assert_true (appear.created);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS);
  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "appeared meanwhile");

  d = g_dir_open (dir, 0, NULL);
  g_assert_cmpstr (g_dir_read_name (d), ==, "noreplace.kscope");
  g_assert_null (g_dir_read_name (d));

  remove_path (path);
}

/* complete=0 is written first and set last: a trace that says it was cut
 * short (a recording stopped early) keeps saying so. */
static void
test_complete_kept (void)
{
  g_autoptr(KsTraceBuilder) b = ks_trace_builder_new (KS_FORMAT_KSCOPE);
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsTrace) back = NULL;
  g_autofree char *path = NULL;

  ks_trace_builder_set_metadata (b, "complete", "0");
  trace = ks_trace_builder_finish (g_steal_pointer (&b), NULL, NULL);
  g_assert_nonnull (trace);
  path = temp_path ("cut.kscope");
  back = save_and_load (trace, path);
  g_assert_cmpstr (ks_trace_get_metadata (back, "complete"), ==, "0");
  /* ... and the copy is read as a recording cut short */
  g_assert_cmpstr (ks_trace_get_metadata (back, "warnings"), ==,
                   "The recording was cut short: the recorder stopped before it finished the file (it was "
                   "killed or crashed); what happened after its last save is missing");
  remove_path (path);
}

/* A trace with nothing in it saves and loads. */
static void
test_empty (void)
{
  g_autoptr(KsTrace) trace = ks_trace_builder_finish (ks_trace_builder_new (KS_FORMAT_CHROME_JSON), NULL, NULL);
  g_autoptr(KsTrace) back = NULL;

  g_assert_nonnull (trace);
  back = assert_round_trip (trace);
  g_assert_cmpuint (back->n_tracks, ==, 0);
  g_assert_cmpint (back->duration_ns, ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  static const char * const fixtures[] = {
    "gpt_3steps.pt.trace.json.gz",
    "loader_bound.pt.trace.json.gz",
    "seed_cnn.pt.trace.json.gz",
    "workers_pinned.pt.trace.json.gz",
  };

  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/roundtrip/hand-built", test_hand_built);
  g_test_add_func ("/roundtrip/empty", test_empty);
  g_test_add_func ("/roundtrip/nsight-sql", test_nsight_sql);
  g_test_add_func ("/roundtrip/atomic-write", test_atomic_write);
  g_test_add_func ("/roundtrip/cancel-midway", test_cancel_midway);
  g_test_add_func ("/roundtrip/no-replace", test_no_replace);
  g_test_add_func ("/roundtrip/complete-kept", test_complete_kept);
  for (guint i = 0; i < G_N_ELEMENTS (fixtures); i++)
    {
      g_autofree char *name = g_strdup_printf ("/roundtrip/json/%s", fixtures[i]);

      g_test_add_data_func (name, fixtures[i], test_json_fixture);
    }
  g_test_add_func ("/roundtrip/nsys-export", test_nsys_export);
  g_test_add_func ("/roundtrip/corpus", test_corpus);

  return g_test_run ();
}
