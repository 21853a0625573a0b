/* test-torch-kscope.c: the analyses over a recording of PyTorch's own
 * events (operator NVTX ranges, caching-allocator events), written here
 * in SQL as the recorder writes them
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <sqlite3.h>
#include <string.h>
#include <glib/gstdio.h>

#include "ks-analysis.h"
#include "ks-kscope-schema.h"
#include "ks-sqlite-reader.h"

#define PID  100
#define MAIN 100
#define AUTOGRAD 101

/* Names of the StringIds rows */
enum { S_LAUNCH = 1, S_GEMM, S_RELU, S_MM, S_FORWARD, S_MODEL_PY, S_MAIN, S_TRAIN_PY };

/* The main thread's Python stack, sampled every 500 ns from 1000 to
 * 6000: train.py:20 main > model.py:7 forward; none on autograd's. */
#define SAMPLE_FIRST 1000
#define SAMPLE_LAST  6000
#define SAMPLE_EVERY 500

typedef struct
{
  const char *name;
  gint64      start;
  gint64      end;
  gint64      tid;
} Range;

/* The main thread's forward, then autograd's thread's backward; each
 * operator's kernel is launched inside it. */
static const Range ranges[] = {
  { "step 0", 0, 10000, MAIN },
  { "aten::linear, seq = 1, op_id = 1", 1000, 5000, MAIN },
  { "aten::addmm, seq = 1, op_id = 2, sizes = [[4], [2, 3], [3, 4]]", 1500, 4000, MAIN },
  { "aten::relu, seq = 2, op_id = 3, sizes = [[2, 4]]", 5500, 7000, MAIN },
  { "autograd::engine::evaluate_function: AddmmBackward0, seq = 1, op_id = 4", 7000, 9500, AUTOGRAD },
  { "aten::mm, op_id = 5, sizes = [[2, 4], [4, 3]]", 7200, 9000, AUTOGRAD },
};

typedef struct
{
  gint64 api_start;
  gint64 api_end;
  gint64 tid;
  guint  kernel;
  gint64 k_start;
  gint64 k_end;
} Launch;

static const Launch launches[] = {
  { 2000, 2500, MAIN, S_GEMM, 3000, 6000 },
  { 6000, 6200, MAIN, S_RELU, 6500, 7500 },
  { 7500, 7700, AUTOGRAD, S_MM, 8000, 9800 },
};

typedef struct
{
  gint64   ts;
  gint64   tid;               /* 0: the allocator did not know it */
  guint64  address;
  gint64   bytes;
  gint64   total_allocated;
  gint64   total_reserved;    /* -1: NULL, a CUDA-level row */
} Mem;

#define SEGMENT (G_GINT64_CONSTANT (2) << 20)

static const Mem mems[] = {
  /* cudaMalloc of the allocator's segment, as CUPTI saw it */
  { 1550, MAIN, 0x7f0000000000, SEGMENT, SEGMENT, -1 },
  { 1600, 0, 0x7f0000000000, 512, 512, SEGMENT },
  { 7300, 0, 0x7f0000000200, 1024, 1536, SEGMENT },
  { 9900, 0, 0x7f0000000000, -512, 1024, SEGMENT },
  /* the allocator gives its cache back */
  { 9950, MAIN, 0x7f0000000000, -SEGMENT, 0, -1 },
};

static gint64
gtid (gint64 tid)
{
  return ks_kscope_global_tid (PID, tid);
}

static void
exec_sql (sqlite3    *db,
          const char *sql)
{
  char *msg = NULL;

  if (sqlite3_exec (db, sql, NULL, NULL, &msg) != SQLITE_OK)
    g_error ("%s: %s", sql, msg);
}

static char *
write_recording (void)
{
  g_autofree char *dir = g_dir_make_tmp ("ks-torch-XXXXXX", NULL);
  char *path = g_build_filename (dir, "torch.kscope", NULL);
  g_autoptr(GString) s = g_string_new ("PRAGMA application_id = 1263747919;");
  sqlite3 *db = NULL;

  g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);
  for (guint t = 0; t < KS_KSCOPE_N_TABLES; t++)
    g_assert_cmpint (ks_kscope_schema_create_table (db, t), ==, SQLITE_OK);

  g_string_append (s, "INSERT INTO StringIds (id, value) VALUES (1, 'cudaLaunchKernel'), (2, 'gemm_kernel'),"
                      " (3, 'relu_kernel'), (4, 'mm_kernel'), (5, 'forward'), (6, '/src/model.py'),"
                      " (7, 'main'), (8, '/src/train.py');");
  g_string_append_printf (s, "INSERT INTO SAMPLING_CALLCHAINS (id, symbol, module, stackDepth, lineNumber) VALUES"
                             " (1, %d, %d, 0, 7), (1, %d, %d, 1, 20);", S_FORWARD, S_MODEL_PY, S_MAIN, S_TRAIN_PY);
  for (gint64 t = SAMPLE_FIRST, id = 1; t <= SAMPLE_LAST; t += SAMPLE_EVERY, id++)
    g_string_append_printf (s, "INSERT INTO COMPOSITE_EVENTS (id, start, globalTid, cpuCycles, callchainId) VALUES"
                               " (%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", 0, 1);",
                            id, t, gtid (MAIN));
  g_string_append_printf (s, "INSERT INTO PROCESSES (globalPid, pid, name) VALUES (%" G_GINT64_FORMAT ", %d, 'python');",
                          ks_kscope_global_pid (PID), PID);
  for (guint i = 0; i < G_N_ELEMENTS (ranges); i++)
    {
      char *text = sqlite3_mprintf ("%Q", ranges[i].name);

      g_string_append_printf (s, "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid) VALUES"
                                 " (%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", 59, %s, %" G_GINT64_FORMAT ");",
                              ranges[i].start, ranges[i].end, text, gtid (ranges[i].tid));
      sqlite3_free (text);
    }
  for (guint i = 0; i < G_N_ELEMENTS (launches); i++)
    {
      const Launch *l = &launches[i];

      g_string_append_printf (s, "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME (start, end, eventClass, globalTid,"
                                 " correlationId, nameId, returnValue) VALUES (%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT
                                 ", 0, %" G_GINT64_FORMAT ", %u, %d, 0);",
                              l->api_start, l->api_end, gtid (l->tid), i + 1, S_LAUNCH);
      g_string_append_printf (s, "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, streamId,"
                                 " correlationId, globalPid, demangledName, shortName, registersPerThread, gridX, gridY,"
                                 " gridZ, blockX, blockY, blockZ, staticSharedMemory, dynamicSharedMemory,"
                                 " localMemoryPerThread, localMemoryTotal, gridId) VALUES (%" G_GINT64_FORMAT ", %"
                                 G_GINT64_FORMAT ", 0, 1, 7, %u, %" G_GINT64_FORMAT ", %u, %u, 32, 1, 1, 1, 128, 1,"
                                 " 1, 0, 0, 0, 0, %u);",
                              l->k_start, l->k_end, i + 1, ks_kscope_global_pid (PID), l->kernel, l->kernel, i + 1);
    }
  for (guint i = 0; i < G_N_ELEMENTS (mems); i++)
    {
      const Mem *m = &mems[i];
      g_autofree char *reserved = m->total_reserved < 0 ? g_strdup ("NULL")
                                                         : g_strdup_printf ("%" G_GINT64_FORMAT, m->total_reserved);

      g_string_append_printf (s, "INSERT INTO KS_MEMORY_EVENTS (timestamp, globalTid, deviceId, address, bytes,"
                                 " totalAllocated, totalReserved) VALUES (%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT
                                 ", 0, %" G_GUINT64_FORMAT ", %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", %s);",
                              m->ts, gtid (m->tid), m->address, m->bytes, m->total_allocated, reserved);
    }
  exec_sql (db, s->str);
  sqlite3_close (db);
  return path;
}

static void
remove_recording (const char *path)
{
  g_autofree char *dir = g_path_get_dirname (path);

  g_unlink (path);
  g_rmdir (dir);
}

static KsTrace *
load_recording (char **out_path)
{
  g_autofree char *path = write_recording ();
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  KsTrace *trace = ks_sqlite_reader_load (file, NULL, NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (trace);
  *out_path = g_steal_pointer (&path);
  return trace;
}

static KsAnalysis *
analyse (KsTrace *trace)
{
  g_autoptr(GError) error = NULL;
  KsAnalysisOptions options;
  KsAnalysis *analysis;

  ks_analysis_options_init (&options);
  analysis = ks_analysis_compute (trace, &options, NULL, NULL, &error);
  g_assert_no_error (error);
  return analysis;
}

static gint64
tid_of (KsTrace *trace,
        guint32  thread)
{
  g_assert_cmpuint (thread, <, trace->n_threads);
  return trace->threads[thread].tid;
}

/* The name of the innermost operator range containing @ts on @tid, or
 * NULL: what memory by operator must say, from the table above. */
static const char *
operator_at (gint64 tid,
             gint64 ts)
{
  const char *best = NULL;
  gint64 best_dur = G_MAXINT64;

  for (guint i = 0; i < G_N_ELEMENTS (ranges); i++)
    if (ranges[i].tid == tid && strstr (ranges[i].name, "op_id") != NULL &&
        ranges[i].start <= ts && ts < ranges[i].end && ranges[i].end - ranges[i].start < best_dur)
      {
        best = ranges[i].name;
        best_dur = ranges[i].end - ranges[i].start;
      }
  return best;
}

/* The thread an allocator event without one belongs on: the one whose
 * operator there is the deepest (here: the only one), else the main one. */
static gint64
expected_tid (const Mem *m)
{
  if (m->tid != 0)
    return m->tid;
  if (operator_at (AUTOGRAD, m->ts) != NULL && operator_at (MAIN, m->ts) == NULL)
    return AUTOGRAD;
  return MAIN;
}

static gboolean
name_is (const char *got,
         const char *range)
{
  if (range == NULL)
    return got[0] == 0;
  return strncmp (range, got, strlen (got)) == 0 && strncmp (range + strlen (got), ", ", 2) == 0;
}

static void
test_allocator_events (void)
{
  g_autofree char *path = NULL;
  g_autoptr(KsTrace) trace = load_recording (&path);
  g_autoptr(KsAnalysis) analysis = analyse (trace);
  const KsMemoryCurve *curves;
  const KsAllocation *allocs;
  guint n_curves, n_allocs, n_alloc_rows = 0, k = 0, n_python = 0;
  gint64 peak = 0, peak_ts = -1, peak_reserved = -1;
  const Mem *peak_mem = NULL;

  /* Every event kept, the allocator's on a thread of the process */
  g_assert_cmpuint (trace->n_memory_events, ==, G_N_ELEMENTS (mems));
  for (guint i = 0; i < trace->n_memory_events; i++)
    {
      const KsMemoryEvent *ev = &trace->memory_events[i];

      g_assert_cmpint (ev->ts, ==, mems[i].ts);
      g_assert_cmpint (tid_of (trace, ev->thread), ==, expected_tid (&mems[i]));
      g_assert_cmpint (ev->total_reserved, ==, mems[i].total_reserved);
    }
  /* no stand-in thread 0 */
  for (guint32 t = 0; t < trace->n_threads; t++)
    g_assert_cmpint (trace->threads[t].tid, !=, 0);

  /* The curves are the allocator's totals alone */
  curves = ks_analysis_get_memory_curves (analysis, &n_curves);
  g_assert_cmpuint (n_curves, ==, 1);
  g_assert_cmpint (curves[0].device, ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (mems); i++)
    {
      if (mems[i].total_reserved < 0)
        continue;
      g_assert_cmpuint (k, <, curves[0].n_points);
      g_assert_cmpint (curves[0].points[k].ts, ==, mems[i].ts);
      g_assert_cmpint (curves[0].points[k].allocated, ==, mems[i].total_allocated);
      g_assert_cmpint (curves[0].points[k].reserved, ==, mems[i].total_reserved);
      if (mems[i].total_allocated > peak)
        {
          peak = mems[i].total_allocated;
          peak_ts = mems[i].ts;
          peak_mem = &mems[i];
        }
      peak_reserved = MAX (peak_reserved, mems[i].total_reserved);
      k++;
    }
  g_assert_cmpuint (curves[0].n_points, ==, k);
  g_assert_cmpint (curves[0].peak_allocated, ==, peak);
  g_assert_cmpint (curves[0].peak_allocated_ts, ==, peak_ts);
  g_assert_cmpint (curves[0].peak_reserved, ==, peak_reserved);
  g_assert_cmpint (tid_of (trace, curves[0].peak_thread), ==, expected_tid (peak_mem));
  g_assert_true (name_is (ks_trace_string (trace, curves[0].peak_operator),
                          operator_at (expected_tid (peak_mem), peak_mem->ts)));

  /* Allocations: the allocator's blocks, each with the operator that
   * asked for it, and freed where the allocator says */
  allocs = ks_analysis_get_allocations (analysis, &n_allocs);
  for (guint i = 0; i < G_N_ELEMENTS (mems); i++)
    {
      const Mem *m = &mems[i];

      if (m->total_reserved < 0 || m->bytes < 0)
        continue;
      g_assert_cmpuint (n_alloc_rows, <, n_allocs);
      g_assert_cmpint (allocs[n_alloc_rows].alloc_ts, ==, m->ts);
      g_assert_cmpint (allocs[n_alloc_rows].bytes, ==, m->bytes);
      g_assert_cmpint (tid_of (trace, allocs[n_alloc_rows].thread), ==, expected_tid (m));
      g_assert_true (name_is (ks_trace_string (trace, allocs[n_alloc_rows].operator_name),
                              operator_at (expected_tid (m), m->ts)));
      /* and the Python frame that ran it, where its thread was sampled */
      if (expected_tid (m) == MAIN && m->ts >= SAMPLE_FIRST && m->ts < SAMPLE_LAST + SAMPLE_EVERY)
        {
          const KsAllocation *a = &allocs[n_alloc_rows];
          g_autofree char *frame = NULL;

          g_assert_cmpuint (a->python_track, !=, KS_NO_INDEX);
          frame = ks_gap_cause_format_name (trace, KS_GAP_CAUSE_PYTHON,
                                            trace->tracks[a->python_track].name_id[a->python_slice],
                                            a->python_track, a->python_slice);
          g_assert_cmpstr (frame, ==, "model.py:7 forward");
          n_python++;
        }
      else
        g_assert_cmpuint (allocs[n_alloc_rows].python_track, ==, KS_NO_INDEX);
      /* freed by the later allocator row of the same address */
      {
        gint64 free_ts = -1;

        for (guint j = i + 1; j < G_N_ELEMENTS (mems) && free_ts < 0; j++)
          if (mems[j].total_reserved >= 0 && mems[j].address == m->address && mems[j].bytes < 0)
            free_ts = mems[j].ts;
        g_assert_cmpint (allocs[n_alloc_rows].free_ts, ==, free_ts);
      }
      n_alloc_rows++;
    }
  g_assert_cmpuint (n_allocs, ==, n_alloc_rows);
  /* one on the sampled main thread, one on autograd's */
  g_assert_cmpuint (n_python, ==, 1);

  remove_recording (path);
}

static gboolean
is_operator (const Range *r)
{
  return strstr (r->name, "op_id") != NULL;
}

/* Operators' device time is that of the kernels launched inside them:
 * total for every operator around the launch, self for the innermost. */
static void
test_operator_device_time (void)
{
  g_autofree char *path = NULL;
  g_autoptr(KsTrace) trace = load_recording (&path);
  g_autoptr(KsAnalysis) analysis = analyse (trace);
  const KsOperatorStats *ops;
  guint n_ops, n_expected = 0;

  ops = ks_analysis_get_operators (analysis, KS_OPERATOR_BY_NAME, &n_ops);
  for (guint i = 0; i < G_N_ELEMENTS (ranges); i++)
    {
      const Range *r = &ranges[i];
      const KsOperatorStats *op = NULL;
      gint64 total = 0, self = 0, host_self = r->end - r->start;

      if (!is_operator (r))
        continue;
      n_expected++;
      for (guint k = 0; k < n_ops; k++)
        if (name_is (ks_trace_string (trace, ops[k].name), r->name))
          op = &ops[k];
      g_assert_nonnull (op);

      for (guint l = 0; l < G_N_ELEMENTS (launches); l++)
        {
          const Launch *la = &launches[l];
          gint64 dur = la->k_end - la->k_start;

          if (la->tid != r->tid || la->api_start < r->start || la->api_end > r->end)
            continue;
          total += dur;
          if (operator_at (la->tid, la->api_start) == r->name)
            {
              self += dur;
              /* PyTorch's host self time leaves out the CUDA calls too */
              host_self -= la->api_end - la->api_start;
            }
        }
      for (guint j = 0; j < G_N_ELEMENTS (ranges); j++)
        if (j != i && is_operator (&ranges[j]) && ranges[j].tid == r->tid &&
            ranges[j].start >= r->start && ranges[j].end <= r->end &&
            ranges[j].end - ranges[j].start < r->end - r->start)
          {
            /* only the direct children: none here is nested twice under another */
            host_self -= ranges[j].end - ranges[j].start;
          }

      g_test_message ("%s: device %" G_GINT64_FORMAT "/%" G_GINT64_FORMAT, r->name, total, self);
      g_assert_cmpuint (op->calls, ==, 1);
      g_assert_cmpint (op->host_total_ns, ==, r->end - r->start);
      g_assert_cmpint (op->host_self_ns, ==, host_self);
      g_assert_cmpint (op->device_total_ns, ==, total);
      g_assert_cmpint (op->device_self_ns, ==, self);
    }
  g_assert_cmpuint (n_ops, ==, n_expected);

  remove_recording (path);
}

/* The "step 0" NVTX range is the step; each nanosecond of it goes to the
 * first of kernel, runtime call and operator that covers it. */
static void
test_step_breakdown (void)
{
  g_autofree char *path = NULL;
  g_autoptr(KsTrace) trace = load_recording (&path);
  g_autoptr(KsAnalysis) analysis = analyse (trace);
  const Range *step = &ranges[0];
  gint64 parts[KS_N_STEP_PARTS] = { 0 };
  const KsStep *steps;
  guint n_steps;

  for (gint64 t = step->start; t < step->end; t++)
    {
      KsStepPart part = KS_STEP_OTHER;

      for (guint l = 0; l < G_N_ELEMENTS (launches); l++)
        if (launches[l].k_start <= t && t < launches[l].k_end)
          part = KS_STEP_KERNEL;
      for (guint l = 0; l < G_N_ELEMENTS (launches) && part == KS_STEP_OTHER; l++)
        if (launches[l].api_start <= t && t < launches[l].api_end)
          part = KS_STEP_RUNTIME;
      for (guint i = 0; i < G_N_ELEMENTS (ranges) && part == KS_STEP_OTHER; i++)
        if (is_operator (&ranges[i]) && ranges[i].start <= t && t < ranges[i].end)
          part = KS_STEP_CPU_EXEC;
      parts[part]++;
    }

  steps = ks_analysis_get_steps (analysis, &n_steps);
  g_assert_cmpuint (n_steps, ==, 1);
  g_assert_cmpint (steps[0].start, ==, step->start);
  g_assert_cmpint (steps[0].end, ==, step->end);
  for (guint p = 0; p < KS_N_STEP_PARTS; p++)
    {
      g_test_message ("%s: %" G_GINT64_FORMAT, ks_step_part_to_string (p), parts[p]);
      g_assert_cmpint (steps[0].parts[p], ==, parts[p]);
    }
  g_assert_cmpint (parts[KS_STEP_CPU_EXEC], >, 0);

  remove_recording (path);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/torch-kscope/allocator-events", test_allocator_events);
  g_test_add_func ("/torch-kscope/operator-device-time", test_operator_device_time);
  g_test_add_func ("/torch-kscope/step-breakdown", test_step_breakdown);
  return g_test_run ();
}
