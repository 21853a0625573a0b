/* test-json-reader.c: Kineto and Chrome trace-event JSON: the fixtures, features, folders,
 * loading asynchronously and the corpus
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>
#include <unistd.h>
#include <gio/gunixinputstream.h>
#include <glib/gstdio.h>
#include <zlib.h>

#include "ks-json-reader.h"
#include "ks-kscope-writer.h"
#include "ks-trace-loader.h"

#include "test-json-util.h"

/* Expected numbers were computed independently from the fixtures with
 * Python's json module (Decimal timestamps rounded to ns). */
typedef struct
{
  const char *file;
  guint64 kernel, memcpy, memset, runtime, driver, cpu_op, python, user_annotation;
  guint64 gpu_annotation, generic, other_flows, launch_flows, memory, instants;
  gint64  kernel_ns, memcpy_ns;
  guint64 memcpy_bytes;
  gint64  duration;
  guint   processes, threads;
  /* slices of threads that end after the slice they start in (placed
   * beside it), recomputed by a Perfetto-style stack in Python; and the
   * one depth of every ProfilerStep#N */
  guint64 overlaps;
  guint   step_depth;
} Expected;

static const Expected fixtures[] = {
  { "gpt_3steps.pt.trace.json.gz", 1737, 72, 180, 1890, 393, 14724, 11230, 18, 12, 1, 1332, 1989, 4614, 2,
    17140363, 195807, 301989888, 287591754, 2, 3, 36, 3 },
  { "loader_bound.pt.trace.json.gz", 176, 8, 32, 337, 4, 1780, 3189, 20, 8, 1, 40, 216, 848, 2,
    4600263, 1395518, 14156800, 150213307, 2, 3, 40, 3 },
  { "seed_cnn.pt.trace.json.gz", 210, 6, 21, 403, 3, 759, 1582, 9, 6, 1, 48, 237, 408, 2,
    12886943, 614430, 9438720, 41607402, 2, 3, 18, 3 },
  { "workers_pinned.pt.trace.json.gz", 88, 8, 12, 159, 4, 412, 1963, 16, 8, 2, 32, 108, 176, 2,
    1100292, 272191, 14156800, 50309895, 3, 7, 32, 3 },
};

static void
sum_kind (KsTrace     *trace,
          KsSliceKind  kind,
          gint64      *total_ns,
          guint64     *bytes)
{
  *total_ns = 0;
  *bytes = 0;
  for (guint32 t = 0; t < trace->n_tracks; t++)
    {
      const KsTrack *track = &trace->tracks[t];

      for (guint32 i = 0; i < track->n_slices; i++)
        if (track->slice_kind[i] == kind)
          {
            *total_ns += track->end[i] - track->start[i];
            if (track->gpu != NULL && kind == KS_SLICE_MEMCPY)
              *bytes += track->gpu[i].copy.bytes;
          }
    }
}

static void
test_fixture (gconstpointer data)
{
  const Expected *e = data;
  g_autofree char *path = fixture_path (e->file);
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = load_path (path, &error);
  KsTraceCounts c;
  g_autofree char *overlap = NULL;
  gint64 ns;
  guint64 bytes;
  guint steps = 0;

  g_assert_no_error (error);
  g_assert_nonnull (trace);
  g_assert_cmpint (trace->format, ==, KS_FORMAT_KINETO_JSON);

  ks_trace_get_counts (trace, &c);
  g_assert_cmpuint (c.by_kind[KS_SLICE_KERNEL], ==, e->kernel);
  g_assert_cmpuint (c.by_kind[KS_SLICE_MEMCPY], ==, e->memcpy);
  g_assert_cmpuint (c.by_kind[KS_SLICE_MEMSET], ==, e->memset);
  g_assert_cmpuint (c.by_kind[KS_SLICE_CUDA_RUNTIME], ==, e->runtime);
  g_assert_cmpuint (c.by_kind[KS_SLICE_CUDA_DRIVER], ==, e->driver);
  g_assert_cmpuint (c.by_kind[KS_SLICE_CPU_OP], ==, e->cpu_op);
  g_assert_cmpuint (c.by_kind[KS_SLICE_PYTHON], ==, e->python);
  g_assert_cmpuint (c.by_kind[KS_SLICE_USER_ANNOTATION], ==, e->user_annotation);
  g_assert_cmpuint (c.by_kind[KS_SLICE_GPU_ANNOTATION], ==, e->gpu_annotation);
  g_assert_cmpuint (c.by_kind[KS_SLICE_GENERIC], ==, e->generic);
  g_assert_cmpuint (c.by_kind[KS_SLICE_SYNC], ==, 0);
  g_assert_cmpuint (c.launch_flows, ==, e->launch_flows);
  g_assert_cmpuint (c.flows - c.launch_flows, ==, e->other_flows);
  g_assert_cmpuint (c.memory_events, ==, e->memory);
  g_assert_cmpuint (c.instants, ==, e->instants);
  g_assert_cmpuint (c.counter_samples, ==, 0);

  sum_kind (trace, KS_SLICE_KERNEL, &ns, &bytes);
  g_assert_cmpint (ns, ==, e->kernel_ns);
  sum_kind (trace, KS_SLICE_MEMCPY, &ns, &bytes);
  g_assert_cmpint (ns, ==, e->memcpy_ns);
  g_assert_cmpuint (bytes, ==, e->memcpy_bytes);

  g_assert_cmpint (trace->duration_ns, ==, e->duration);
  g_assert_cmpuint (trace->n_processes, ==, e->processes);
  g_assert_cmpuint (trace->n_threads, ==, e->threads);
  g_assert_cmpuint (trace->n_gpus, ==, 1);
  g_assert_cmpstr (ks_trace_string (trace, trace->gpus[0].name), ==, "NVIDIA H200");
  g_assert_cmpuint (trace->gpus[0].sm_count, ==, 132);
  g_assert_cmpuint (trace->gpus[0].total_memory, ==, G_GUINT64_CONSTANT (150109880320));
  g_assert_cmpuint (trace->gpus[0].compute_major, ==, 9);
  g_assert_cmpstr (ks_trace_get_metadata (trace, "displayTimeUnit"), ==, "ms");
  /* baseTimeNanoseconds is the wall clock of the file's ts 0 */
  g_assert_cmpint (trace->start_utc_ns, ==, G_GINT64_CONSTANT (1790857026000000000) + trace->origin_ns);

  /* with_stack: "profiler.py(…): step" and _record_function_enter_new
   * end just after the next step begins; the steps stay on one row */
  overlap = g_strdup_printf ("%s: %" G_GUINT64_FORMAT " slices overlap the slice they start in only partly",
                             path, e->overlaps);
  g_assert_cmpuint (n_warnings (trace), ==, 1);
  g_assert_true (g_str_has_prefix (warnings (trace), overlap));
  g_assert_true (g_str_has_suffix (warnings (trace), "each is drawn beside it, at its depth"));
  for (guint32 t = 0; t < trace->n_tracks; t++)
    {
      const KsTrack *track = &trace->tracks[t];

      for (guint32 i = 0; i < track->n_slices && track->kind == KS_TRACK_THREAD; i++)
        if (g_str_has_prefix (ks_trace_string (trace, track->name_id[i]), "ProfilerStep#"))
          {
            g_assert_cmpuint (track->depth[i], ==, e->step_depth);
            steps++;
          }
    }
  g_assert_cmpuint (steps, >=, 3);
}

/* Details of one fixture: process names, kernel geometry, copy kinds. */
static void
test_fixture_details (void)
{
  g_autoptr(GString) args_buf = g_string_new (NULL);
  g_autofree char *path = fixture_path ("workers_pinned.pt.trace.json.gz");
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = load_path (path, &error);
  guint64 grid = 0, registers = 0, shared = 0, block = 0, htod = 0;
  guint32 p;

  g_assert_no_error (error);

  for (guint32 t = 0; t < trace->n_tracks; t++)
    {
      const KsTrack *track = &trace->tracks[t];

      if (track->kind != KS_TRACK_STREAM)
        continue;
      g_assert_cmpint (track->device, ==, 0);
      g_assert_cmpint (track->stream, ==, 7);
      for (guint32 i = 0; i < track->n_slices; i++)
        {
          const KsGpuInfo *g = &track->gpu[i];

          if (track->slice_kind[i] == KS_SLICE_KERNEL)
            {
              grid += (guint64)g->kernel.grid[0] * g->kernel.grid[1] * g->kernel.grid[2];
              registers += g->kernel.registers;
              shared += g->kernel.shared_memory;
              block += g->kernel.block[0];
              g_assert_cmpuint (track->correlation[i], >, 0);
            }
          else if (track->slice_kind[i] == KS_SLICE_MEMCPY)
            {
              g_assert_cmpuint (g->copy.copy_kind, ==, KS_COPY_HTOD);
              g_assert_cmpuint (g->copy.src_kind, ==, KS_MEM_PINNED);
              g_assert_cmpuint (g->copy.dst_kind, ==, KS_MEM_DEVICE);
              htod++;
            }
          else if (track->slice_kind[i] == KS_SLICE_MEMSET)
            g_assert_cmpuint (g->copy.dst_kind, ==, KS_MEM_DEVICE);
        }
    }
  g_assert_cmpuint (grid, ==, 386536);
  g_assert_cmpuint (registers, ==, 3572);
  g_assert_cmpuint (shared, ==, 218320);
  g_assert_cmpuint (block, ==, 8336);
  g_assert_cmpuint (htod, ==, 8);

  p = ks_trace_find_process (trace, 625);
  g_assert_cmpuint (p, !=, KS_NO_INDEX);
  g_assert_cmpstr (ks_trace_string (trace, trace->processes[p].name), ==, "python3");
  g_assert_cmpstr (ks_trace_string (trace, trace->processes[p].label), ==, "CPU");
  g_assert_cmpint (trace->processes[p].sort_index, ==, 625);

  /* The Kineto "Spans" process has a string pid: synthetic id, original kept. */
  {
    gboolean found = FALSE;

    for (guint32 i = 0; i < trace->n_processes; i++)
      if (g_strcmp0 (ks_trace_string (trace, trace->processes[i].original), "Spans") == 0)
        {
          found = TRUE;
          g_assert_cmpint (trace->processes[i].pid, >=, 0x800000);
        }
    g_assert_true (found);
  }

  /* Args are kept as compact JSON. */
  for (guint32 t = 0; t < trace->n_tracks; t++)
    {
      const KsTrack *track = &trace->tracks[t];

      for (guint32 i = 0; i < track->n_slices; i++)
        if (track->slice_kind[i] == KS_SLICE_CPU_OP)
          {
            const char *args = ks_trace_slice_args (trace, track, i, args_buf);

            g_assert_nonnull (args);
            g_assert_true (g_str_has_prefix (args, "{\"External id\":"));
            g_assert_null (strchr (args, '\n'));
            g_assert_cmpuint (track->external_id[i], >, 0);
            return;
          }
    }
  g_assert_not_reached ();
}

static void
test_chrome_features (void)
{
  g_autoptr(GString) args_buf = g_string_new (NULL);
  const char *json =
    "{\"displayTimeUnit\":\"ns\",\"traceEvents\":["
    "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":7,\"args\":{\"name\":\"renderer\"}},"
    "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":7,\"tid\":\"main\",\"args\":{\"name\":\"Main thread\"}},"
    "{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":7,\"tid\":\"main\",\"args\":{\"sort_index\":-3}},"
    "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":99,\"args\":{\"name\":\"nobody\"}},"
    "{\"ph\":\"B\",\"name\":\"outer\",\"pid\":7,\"tid\":\"main\",\"ts\":1.0015},"
    "{\"ph\":\"B\",\"name\":\"inner\",\"pid\":7,\"tid\":\"main\",\"ts\":2},"
    "{\"ph\":\"E\",\"pid\":7,\"tid\":\"main\",\"ts\":3},"
    "{\"ph\":\"E\",\"pid\":7,\"tid\":\"main\",\"ts\":10},"
    "{\"ph\":\"E\",\"pid\":7,\"tid\":\"main\",\"ts\":11},"
    "{\"ph\":\"B\",\"name\":\"never-ends\",\"pid\":7,\"tid\":\"main\",\"ts\":12},"
    "{\"ph\":\"X\",\"name\":\"x\",\"cat\":\"c\",\"pid\":7,\"tid\":\"main\",\"ts\":20,\"dur\":5,\"args\":{ \"a\" : [1, 2] }},"
    "{\"ph\":\"C\",\"name\":\"mem\",\"pid\":7,\"ts\":1,\"args\":{\"heap\":10,\"gpu\":2.5}},"
    "{\"ph\":\"C\",\"name\":\"mem\",\"pid\":7,\"ts\":5,\"args\":{\"heap\":12,\"gpu\":3}},"
    "{\"ph\":\"C\",\"name\":\"load\",\"pid\":7,\"ts\":5,\"args\":{\"value\":0.5}},"
    "{\"ph\":\"b\",\"cat\":\"net\",\"id\":\"0x1\",\"name\":\"request\",\"pid\":7,\"tid\":1,\"ts\":2},"
    "{\"ph\":\"b\",\"cat\":\"net\",\"id\":\"0x1\",\"name\":\"dns\",\"pid\":7,\"tid\":1,\"ts\":3},"
    "{\"ph\":\"n\",\"cat\":\"net\",\"id\":\"0x1\",\"name\":\"mark\",\"pid\":7,\"tid\":1,\"ts\":3.5},"
    "{\"ph\":\"e\",\"cat\":\"net\",\"id\":\"0x1\",\"name\":\"dns\",\"pid\":7,\"tid\":1,\"ts\":4},"
    "{\"ph\":\"e\",\"cat\":\"net\",\"id\":\"0x1\",\"name\":\"request\",\"pid\":7,\"tid\":1,\"ts\":9},"
    "{\"ph\":\"S\",\"cat\":\"old\",\"id\":5,\"name\":\"legacy\",\"pid\":7,\"tid\":1,\"ts\":2},"
    "{\"ph\":\"F\",\"cat\":\"old\",\"id\":5,\"name\":\"legacy\",\"pid\":7,\"tid\":1,\"ts\":6},"
    "{\"ph\":\"f\",\"cat\":\"link\",\"id\":9,\"pid\":7,\"tid\":\"main\",\"ts\":21,\"bp\":\"e\"},"
    "{\"ph\":\"s\",\"cat\":\"link\",\"id\":9,\"pid\":7,\"tid\":\"main\",\"ts\":2.5},"
    "{\"ph\":\"i\",\"name\":\"thread-mark\",\"pid\":7,\"tid\":\"main\",\"ts\":30,\"s\":\"t\"},"
    "{\"ph\":\"I\",\"name\":\"global-mark\",\"pid\":7,\"tid\":\"main\",\"ts\":31,\"s\":\"g\"},"
    "{\"ph\":\"i\",\"name\":\"process-mark\",\"pid\":7,\"tid\":\"main\",\"ts\":32,\"s\":\"p\"}"
    "]}";
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = load_text (json, -1, &error);
  KsTraceCounts c;
  guint32 p, main_track = KS_NO_INDEX;
  const KsTrack *track;
  gboolean saw_outer = FALSE, saw_inner = FALSE, saw_x = FALSE;

  g_assert_no_error (error);
  g_assert_cmpint (trace->format, ==, KS_FORMAT_CHROME_JSON);
  g_assert_cmpstr (ks_trace_get_metadata (trace, "displayTimeUnit"), ==, "ns");

  /* time 0 is the first event: the counter at ts 1 us */
  g_assert_cmpint (trace->origin_ns, ==, 1000);

  /* process 99 only has a name: made, without rows (an empty group) */
  g_assert_cmpuint (trace->n_processes, ==, 2);
  p = ks_trace_find_process (trace, 99);
  g_assert_cmpstr (ks_trace_string (trace, trace->processes[p].name), ==, "nobody");
  for (guint32 t = 0; t < trace->n_tracks; t++)
    g_assert_cmpuint (trace->tracks[t].process, !=, p);
  p = ks_trace_find_process (trace, 7);
  g_assert_cmpstr (ks_trace_string (trace, trace->processes[p].name), ==, "renderer");

  for (guint32 i = 0; i < trace->n_threads; i++)
    if (g_strcmp0 (ks_trace_string (trace, trace->threads[i].original), "main") == 0)
      {
        g_assert_cmpstr (ks_trace_string (trace, trace->threads[i].name), ==, "Main thread");
        g_assert_cmpint (trace->threads[i].sort_index, ==, -3);
        main_track = trace->threads[i].track;
      }
  g_assert_cmpuint (main_track, !=, KS_NO_INDEX);
  track = &trace->tracks[main_track];

  for (guint32 i = 0; i < track->n_slices; i++)
    {
      const char *name = ks_trace_string (trace, track->name_id[i]);

      if (g_str_equal (name, "outer"))
        {
          saw_outer = TRUE;
          /* 1.0015 us = 1001.5 ns, rounded half up; relative to 1000 */
          g_assert_cmpint (track->start[i], ==, 2);
          g_assert_cmpint (track->end[i], ==, 9000);
          g_assert_cmpuint (track->depth[i], ==, 0);
        }
      else if (g_str_equal (name, "inner"))
        {
          saw_inner = TRUE;
          g_assert_cmpint (track->end[i] - track->start[i], ==, 1000);
          g_assert_cmpuint (track->depth[i], ==, 1);
        }
      else if (g_str_equal (name, "never-ends"))
        /* closed at the last timestamp of the file (32 us) */
        g_assert_cmpint (track->end[i], ==, 31000);
      else if (g_str_equal (name, "x"))
        {
          saw_x = TRUE;
          g_assert_cmpstr (ks_trace_slice_args (trace, track, i, args_buf), ==, "{\"a\":[1,2]}");
          g_assert_cmpstr (ks_trace_string (trace, track->category[i]), ==, "c");
        }
    }
  g_assert_true (saw_outer && saw_inner && saw_x);

  ks_trace_get_counts (trace, &c);
  g_assert_cmpuint (c.by_kind[KS_SLICE_GENERIC], ==, 4);
  g_assert_cmpuint (c.by_kind[KS_SLICE_ASYNC], ==, 3);
  g_assert_cmpuint (c.flows, ==, 1);
  g_assert_cmpuint (c.launch_flows, ==, 0);
  g_assert_cmpuint (c.counter_samples, ==, 5);
  g_assert_cmpuint (trace->n_counters, ==, 3);
  g_assert_cmpuint (c.instants, ==, 4);

  /* the flow binds "s" at 2.5 us to the deepest slice there, "f" to "x" */
  g_assert_cmpstr (ks_trace_string (trace, track->name_id[trace->flows[0].from_slice]), ==, "inner");
  g_assert_cmpstr (ks_trace_string (trace, track->name_id[trace->flows[0].to_slice]), ==, "x");

  for (guint32 i = 0; i < trace->n_counters; i++)
    {
      const char *name = ks_trace_string (trace, trace->counters[i].name);

      if (g_str_equal (name, "mem gpu"))
        {
          g_assert_cmpuint (trace->counters[i].n_samples, ==, 2);
          g_assert_cmpfloat (trace->counters[i].value[0], ==, 2.5);
        }
      else
        g_assert_true (g_str_equal (name, "mem heap") || g_str_equal (name, "load value"));
    }

  for (guint32 i = 0; i < trace->n_instants; i++)
    {
      const KsInstant *inst = &trace->instants[i];
      const char *name = ks_trace_string (trace, inst->name);

      if (g_str_equal (name, "global-mark"))
        g_assert_true (inst->track == KS_NO_INDEX && inst->process == KS_NO_INDEX);
      else if (g_str_equal (name, "process-mark"))
        g_assert_true (inst->track == KS_NO_INDEX && inst->process == p);
      else if (g_str_equal (name, "thread-mark"))
        g_assert_cmpuint (inst->track, ==, main_track);
      else
        g_assert_cmpstr (name, ==, "mark");
    }

  /* nested async ranges share the row of the outermost one */
  for (guint32 t = 0; t < trace->n_tracks; t++)
    if (trace->tracks[t].kind == KS_TRACK_ASYNC &&
        g_str_equal (ks_trace_string (trace, trace->tracks[t].name), "request"))
      {
        g_assert_cmpuint (trace->tracks[t].n_slices, ==, 2);
        g_assert_cmpuint (trace->tracks[t].max_depth, ==, 2);
      }

  g_assert_nonnull (strstr (warnings (trace), "1 end events had no matching begin"));
  g_assert_nonnull (strstr (warnings (trace), "1 begin events had no matching end"));
}

/* B/E args: the union of both objects; a B left open keeps its own. */
static void
test_begin_end_args (void)
{
  g_autoptr(GString) args_buf = g_string_new (NULL);
  const char *json =
    "[{\"ph\":\"B\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"args\":{\"x\":1}},"
    "{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":2,\"args\":{ \"y\" : \"two\" }},"
    "{\"ph\":\"B\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":3},"
    "{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":4,\"args\":{\"z\":[3]}},"
    "{\"ph\":\"B\",\"name\":\"c\",\"pid\":1,\"tid\":1,\"ts\":5,\"args\":{\"open\":true}},"
    "{\"ph\":\"B\",\"name\":\"d\",\"pid\":1,\"tid\":1,\"ts\":6,\"args\":{}},"
    "{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":7}]";
  const char *expect[] = { "{\"x\":1,\"y\":\"two\"}", "{\"z\":[3]}", "{\"open\":true}", NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = load_text (json, -1, &error);
  const KsTrack *track;

  g_assert_no_error (error);
  track = only_thread_track (trace);
  g_assert_cmpuint (track->n_slices, ==, 4);
  for (guint32 i = 0; i < track->n_slices; i++)
    g_assert_cmpstr (ks_trace_slice_args (trace, track, i, args_buf), ==, expect[i]);
}

/* Async ranges and flows keyed by id2 {"local"|"global"} instead of id. */
static void
test_id2 (void)
{
  const char *json =
    "[{\"ph\":\"b\",\"cat\":\"c\",\"id2\":{\"local\":\"0x7\"},\"name\":\"r\",\"pid\":1,\"ts\":1},"
    "{\"ph\":\"b\",\"cat\":\"c\",\"id2\":{\"global\":\"0x8\"},\"name\":\"r\",\"pid\":1,\"ts\":2},"
    "{\"ph\":\"e\",\"cat\":\"c\",\"id2\":{\"global\":\"0x8\"},\"name\":\"r\",\"pid\":1,\"ts\":3},"
    "{\"ph\":\"e\",\"cat\":\"c\",\"id2\":{\"local\":\"0x7\"},\"name\":\"r\",\"pid\":1,\"ts\":5},"
    "{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":2},"
    "{\"ph\":\"X\",\"name\":\"b\",\"pid\":1,\"tid\":2,\"ts\":3,\"dur\":2},"
    "{\"ph\":\"s\",\"cat\":\"f\",\"id2\":{\"local\":\"1\"},\"pid\":1,\"tid\":1,\"ts\":1.5},"
    "{\"ph\":\"f\",\"cat\":\"f\",\"id2\":{\"local\":\"1\"},\"bp\":\"e\",\"pid\":1,\"tid\":2,\"ts\":4}]";
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = load_text (json, -1, &error);
  KsTraceCounts c;

  g_assert_no_error (error);
  ks_trace_get_counts (trace, &c);
  g_assert_cmpuint (c.by_kind[KS_SLICE_ASYNC], ==, 2);
  g_assert_cmpuint (c.flows, ==, 1);
  g_assert_cmpstr (warnings (trace), ==, "");
  for (guint32 t = 0; t < trace->n_tracks; t++)
    if (trace->tracks[t].kind == KS_TRACK_ASYNC)
      {
        const KsTrack *track = &trace->tracks[t];

        /* [1,5) and [2,3): both "r", the second nested in the first */
        g_assert_cmpuint (track->n_slices, ==, 2);
        g_assert_cmpint (track->end[0] - track->start[0], ==, 4000);
        g_assert_cmpint (track->end[1] - track->start[1], ==, 1000);
      }
}

static void
test_array_form_and_kineto_memory (void)
{
  const char *json =
    "[{\"ph\":\"X\",\"cat\":\"Kernel\",\"name\":\"k\",\"pid\":1,\"tid\":\"stream 3\",\"ts\":10,\"dur\":2,"
    "\"args\":{\"device\":1,\"correlation\":5,\"grid\":[2,3,4],\"block\":[32,1,1]}},"
    "{\"ph\":\"X\",\"cat\":\"Runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":40,\"tid\":41,\"ts\":9,\"dur\":1,"
    "\"args\":{\"correlation\":5,\"external id\":3}},"
    "{\"ph\":\"i\",\"name\":\"[memory]\",\"pid\":40,\"tid\":41,\"ts\":11,\"s\":\"t\","
    "\"args\":{\"Device Type\":1,\"Device Id\":1,\"Addr\":18446744073709551615,\"Bytes\":-512,"
    "\"Total Allocated\":1024,\"Total Reserved\":4096}},"
    "{\"ph\":\"i\",\"name\":\"[memory]\",\"pid\":40,\"tid\":41,\"ts\":12,"
    "\"args\":{\"Device Type\":0,\"Device Id\":-1,\"Addr\":1,\"Bytes\":64}},"
    "{\"ph\":\"X\",\"cat\":\"cuda_sync\",\"name\":\"Context Sync\",\"pid\":1,\"tid\":-1,\"ts\":13,\"dur\":1,"
    "\"args\":{\"stream\":4294967295,\"device\":1,\"correlation\":9}}"
    "]";
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = load_text (json, -1, &error);
  KsTraceCounts c;

  g_assert_no_error (error);
  g_assert_cmpint (trace->format, ==, KS_FORMAT_KINETO_JSON);
  ks_trace_get_counts (trace, &c);
  g_assert_cmpuint (c.by_kind[KS_SLICE_KERNEL], ==, 1);
  g_assert_cmpuint (c.by_kind[KS_SLICE_CUDA_RUNTIME], ==, 1);
  g_assert_cmpuint (c.launch_flows, ==, 1);
  g_assert_cmpuint (trace->n_memory_events, ==, 2);
  g_assert_cmpint (trace->memory_events[0].device, ==, 1);
  g_assert_cmpint (trace->memory_events[0].bytes, ==, -512);
  g_assert_cmpuint (trace->memory_events[0].address, ==, G_MAXUINT64);
  g_assert_cmpint (trace->memory_events[0].total_allocated, ==, 1024);
  g_assert_cmpint (trace->memory_events[0].total_reserved, ==, 4096);
  g_assert_cmpint (trace->memory_events[1].device, ==, -1);
  g_assert_cmpint (trace->memory_events[1].total_allocated, ==, -1);

  g_assert_cmpuint (c.by_kind[KS_SLICE_SYNC], ==, 1);
  for (guint32 t = 0; t < trace->n_tracks; t++)
    if (trace->tracks[t].kind == KS_TRACK_STREAM)
      {
        const KsTrack *track = &trace->tracks[t];

        g_assert_cmpint (track->device, ==, 1);
        if (track->stream == -1)
          {
            /* device-wide synchronisation: stream 2^32 - 1 in the file */
            g_assert_cmpuint (track->slice_kind[0], ==, KS_SLICE_SYNC);
            continue;
          }
        g_assert_cmpint (track->stream, ==, 3);
        g_assert_cmpuint (track->gpu[0].kernel.grid[2], ==, 4);
        g_assert_cmpuint (track->gpu[0].kernel.block[0], ==, 32);
      }
}

/* Args keep no white space outside their strings, wherever the read
 * blocks cut them and however the white space runs. */
static void
test_args_white_space (void)
{
  g_autoptr(GString) args_buf = g_string_new (NULL);
  g_autoptr(GString) json = g_string_new ("[\n");
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  const KsTrack *track;
  const char *expect = "{\"k s\":12,\"t\":[true,null,-1.5e3],\"u\":{\"v\":\"a \\\" b\"}}";
  guint n = 0;

  while (json->len < 3 * 1024 * 1024)
    {
      g_string_append_printf (json,
                              "%*s{\"ph\": \"X\", \"name\": \"a\", \"pid\": 1, \"tid\": 1, "
                              "\"ts\": %u, \"dur\": 1 ,\n  \"args\": { \"k s\" : 12 \n ,\t\"t\" : "
                              "[ true , null ,\n\r -1.5e3 ] , \"u\" : { \"v\" : \"a \\\" b\" } \n }\n}",
                              (int)(n % 23), "", n * 2);
      g_string_append (json, n % 7 == 0 ? " ,\n" : ",");
      n++;
    }
  g_string_append (json, "{\"ph\":\"i\",\"name\":\"end\",\"pid\":1,\"tid\":1,\"ts\":0}]");

  trace = load_text (json->str, json->len, &error);
  g_assert_no_error (error);
  track = only_thread_track (trace);
  g_assert_cmpuint (track->n_slices, ==, n);
  for (guint32 i = 0; i < track->n_slices; i++)
    g_assert_cmpstr (ks_trace_slice_args (trace, track, i, args_buf), ==, expect);
}

/* Text that exercises the white-space dropping: escapes, quotes and
 * white space inside strings, runs of white space across 16- and
 * 64-byte blocks, multi-byte UTF-8. */
static GString *
tricky_json (void)
{
  GString *json = g_string_new ("{\"traceEvents\": [\n");

  for (guint n = 0; n < 3000; n++)
    {
      /* escapes in every seventh event only: the others leave whole
       * 64-byte blocks without a backslash */
      gboolean escapes = n % 7 == 0;

      g_string_append_printf (json,
                              "%*s{ \"ph\" : \"X\",\"name\":\"op %u %s\xc3\xa9 %.*s\" , \"pid\": %u, "
                              "\"tid\" :%u, \"ts\": %u.%03u ,%*s\"dur\" : %u,\n\t\"args\": {%*s\"s\": \"%.*s %s\",\r\n"
                              " \"q%s\":[ %u ,\t-%u.5e-3,\t\t\"%s\" , \"   \", [ ]%*s], \"u\": \"\xe6\x97\xb6 %s\" }}%s",
                              (int)(n % 71), "", n % 13, escapes ? "\\\\ \\\" \\u00e9 " : "", (int)(n % 61),
                              "abcdefghij klmnopqrstuvwxyz 0123456789 ABCDEFGHIJKLMNOPQRSTUVWXYZ abcdefghij",
                              1 + n % 3, n % 5, n * 7, n % 1000, (int)(n % 37), "", 1 + n % 9,
                              (int)(n % 67), "", (int)(n % 50), "x y z  x y z  x y z x y z x y z x y z x y z x",
                              escapes ? "\\\\" : "", escapes ? "\\\\" : "", n, n % 11, escapes ? "\\\\" : "",
                              (int)(n % 5), "", escapes ? "\\n" : "", n + 1 < 3000 ? " ,\n" : "\n");
    }
  g_string_append (json, "]}\n");
  return json;
}

static char *
load_tricky_digest (void)
{
  g_autoptr(GString) json = tricky_json ();
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = load_text (json->str, json->len, &error);

  g_assert_no_error (error);
  return slices_digest (trace);
}

/* The 64-byte (AVX-512) and the 16-byte white-space dropping give the
 * same model. */
static void
test_compaction_paths (void)
{
  g_autofree char *digest = NULL;
  g_autofree char *expect = NULL;

  if (g_test_subprocess ())
    {
      digest = load_tricky_digest ();
      g_print ("%s\n", digest);
      return;
    }

  if (!have_avx512 ())
    {
      g_test_skip ("this processor has no AVX-512 VBMI2: only one path to test");
      return;
    }

  digest = load_tricky_digest ();
  g_assert_true (g_str_has_prefix (digest, "3000 slices "));
  expect = g_strdup_printf ("%s\n", digest);
  trap_without_avx512 ();
  g_test_trap_assert_stdout (expect);
}

static void
shrink_on_progress (KsProgress *progress,
                    gpointer    user_data)
{
  const char *path = user_data;
  static gboolean done;

  /* two of the six blocks parsed: the rest of the file is mapped */
  if (!done && ks_progress_get_fraction (progress) > 0.3)
    {
      done = TRUE;
      g_assert_no_errno (truncate (path, 1536 * 1024));
    }
}

/* Another program truncating a plain file while it is read (mapped, and
 * compacted before it is cut; test-json-raw-cuts has the other way): the
 * text ends where the file now ends, as with any file cut short. */
static void
test_shrunk_while_reading (void)
{
  g_autoptr(GString) json = g_string_new ("[\n");
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsProgress) progress = ks_progress_new ();
  g_autoptr(GFile) file = NULL;
  g_autofree char *path = NULL;
  guint n = 0;

  while (json->len < 6 * 1024 * 1024)
    g_string_append_printf (json, "{\"ph\": \"X\", \"name\": \"a\", \"pid\": 1, \"tid\": 1, \"ts\": %u, \"dur\": 1},\n",
                            n++ * 2);
  g_string_append (json, "{\"ph\":\"i\",\"name\":\"end\",\"pid\":1,\"tid\":1,\"ts\":0}]");
  path = write_temp ("shrinking.json", json->str, json->len);
  file = g_file_new_for_path (path);

  ks_progress_set_notify (progress, shrink_on_progress, g_strdup (path), g_free);
  g_setenv ("KINESCOPE_JSON_CUT", "compacted", TRUE);
  trace = ks_trace_load (file, progress, NULL, &error);
  g_unsetenv ("KINESCOPE_JSON_CUT");
  g_assert_no_error (error);
  g_assert_nonnull (strstr (warnings (trace), "truncated"));
  /* at least the blocks parsed before the truncation, at most its size */
  g_assert_cmpuint (only_thread_track (trace)->n_slices, >=, n / 3 - 1);
  g_assert_cmpuint (only_thread_track (trace)->n_slices, <, n / 2);
  remove_temp (path);
}

/* Flow points are chained per (category, id) in time order: numeric and
 * string ids alike, "7" and "07" apart, the same id in two categories
 * apart, "t" steps continuing a chain, points without a partner dropped. */
static void
test_flow_ids (void)
{
  g_autoptr(GString) json = g_string_new ("[");
  /* one slice around each point, named after its time */
  static const struct { int tid, ts; } slices[] = {
    { 1, 10 }, { 1, 20 }, { 2, 30 }, { 2, 40 }, { 1, 50 }, { 1, 60 }, { 2, 70 }, { 2, 80 }, { 1, 90 },
  };
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autofree char *joined = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (slices); i++)
    g_string_append_printf (json, "{\"ph\":\"X\",\"name\":\"s%d\",\"pid\":1,\"tid\":%d,\"ts\":%d,\"dur\":10},",
                            slices[i].ts, slices[i].tid, slices[i].ts - 5);
  g_string_append (json,
    /* 7 in "c": s at 10, t at 20, f at 30 (written out of order) */
    "{\"ph\":\"f\",\"cat\":\"c\",\"id\":7,\"pid\":1,\"tid\":2,\"ts\":30,\"bp\":\"e\"},"
    "{\"ph\":\"s\",\"cat\":\"c\",\"id\":7,\"pid\":1,\"tid\":1,\"ts\":10},"
    "{\"ph\":\"t\",\"cat\":\"c\",\"id\":\"7\",\"pid\":1,\"tid\":1,\"ts\":20},"
    /* "07": only an end, dropped; 7 in "d": only a start, dropped */
    "{\"ph\":\"f\",\"cat\":\"c\",\"id\":\"07\",\"pid\":1,\"tid\":2,\"ts\":40,\"bp\":\"e\"},"
    "{\"ph\":\"s\",\"cat\":\"d\",\"id\":7,\"pid\":1,\"tid\":1,\"ts\":50},"
    /* a string id, and a number too long to be a key of its own */
    "{\"ph\":\"s\",\"cat\":\"c\",\"id\":\"0x1f\",\"pid\":1,\"tid\":1,\"ts\":60},"
    "{\"ph\":\"f\",\"cat\":\"c\",\"id\":\"0x1f\",\"pid\":1,\"tid\":2,\"ts\":70,\"bp\":\"e\"},"
    "{\"ph\":\"s\",\"cat\":\"c\",\"id\":123456789012345678901,\"pid\":1,\"tid\":2,\"ts\":80},"
    "{\"ph\":\"f\",\"cat\":\"c\",\"id\":123456789012345678901,\"pid\":1,\"tid\":1,\"ts\":90,\"bp\":\"e\"}]");

  trace = load_text (json->str, json->len, &error);
  g_assert_no_error (error);
  joined = flow_pairs (trace, "c");
  g_assert_cmpstr (joined, ==, "s10>s20 s20>s30 s60>s70 s80>s90");
}

/* Arrays under an argument nothing reads reach no callback (the reader
 * does not count their depth): deep ones load, closed or cut short. */
static void
test_deep_unused_arg (void)
{
  g_autoptr(GString) json = g_string_new ("[{\"ph\":\"X\",\"name\":\"deep\",\"pid\":1,\"tid\":1,"
                                          "\"ts\":1,\"dur\":2,\"args\":{\"x\":");
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsTrace) cut = NULL;
  const KsTrack *track;

  for (guint i = 0; i < 100000; i++)
    g_string_append_c (json, '[');
  for (guint i = 0; i < 100000; i++)
    g_string_append_c (json, ']');
  g_string_append (json, ",\"External id\":7}},"
                         "{\"ph\":\"X\",\"name\":\"after\",\"pid\":1,\"tid\":1,\"ts\":4,\"dur\":1}]");

  trace = load_text (json->str, json->len, &error);
  g_assert_no_error (error);
  track = only_thread_track (trace);
  g_assert_cmpuint (track->n_slices, ==, 2);
  g_assert_cmpstr (ks_trace_string (trace, track->name_id[0]), ==, "deep");
  g_assert_cmpuint (track->external_id[0], ==, 7);
  g_assert_cmpstr (ks_trace_string (trace, track->name_id[1]), ==, "after");

  /* the same text cut inside the arrays: the events before it survive */
  g_string_truncate (json, 0);
  g_string_append (json, "[{\"ph\":\"X\",\"name\":\"before\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1},"
                         "{\"ph\":\"X\",\"name\":\"deep\",\"pid\":1,\"tid\":1,\"ts\":3,\"args\":{\"x\":");
  for (guint i = 0; i < 100000; i++)
    g_string_append_c (json, '[');
  cut = load_text (json->str, json->len, &error);
  g_assert_no_error (error);
  track = only_thread_track (cut);
  g_assert_cmpuint (track->n_slices, ==, 1);
  g_assert_cmpstr (ks_trace_string (cut, track->name_id[0]), ==, "before");
  g_assert_nonnull (strstr (ks_trace_get_metadata (cut, "warnings"), "truncated"));
}

/* Times before the trace's zero are valid: a negative start with a
 * duration is a slice, not an overflow. */
static void
test_negative_ts (void)
{
  const char *json =
    "[{\"ph\":\"X\",\"name\":\"a\",\"pid\":0,\"tid\":1,\"ts\":-1,\"dur\":9},"
    "{\"ph\":\"X\",\"name\":\"b\",\"pid\":0,\"tid\":1,\"ts\":-4611686018427387,\"dur\":9223372036854774}]";
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = load_text (json, -1, &error);
  const KsTrack *track;

  g_assert_no_error (error);
  track = only_thread_track (trace);
  g_assert_cmpuint (track->n_slices, ==, 2);
  /* b first: it starts earlier */
  g_assert_cmpint (track->end[0] - track->start[0], ==, G_GINT64_CONSTANT (9223372036854774000));
  g_assert_cmpint (track->end[1] - track->start[1], ==, 9000);
  g_assert_cmpint (track->start[1] - track->start[0], ==, G_GINT64_CONSTANT (4611686018427386000));
}

/* A tensorboard_trace_handler folder: one group per file. */
static void
test_folder (void)
{
  g_autofree char *dir = g_dir_make_tmp ("ks-folder-XXXXXX", NULL);
  const char *names[] = { "seed_cnn.pt.trace.json.gz", "workers_pinned.pt.trace.json.gz" };
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(GFile) folder = g_file_new_for_path (dir);
  KsTraceCounts c;
  guint streams = 0;
  gboolean groups[2] = { FALSE, FALSE };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *src = fixture_path (names[i]);
      g_autofree char *dst = g_build_filename (dir, names[i], NULL);
      g_autofree char *data = NULL;
      gsize len;

      g_assert_true (g_file_get_contents (src, &data, &len, NULL));
      g_assert_true (g_file_set_contents (dst, data, len, NULL));
    }
  {
    g_autofree char *other = g_build_filename (dir, "notes.txt", NULL);

    g_assert_true (g_file_set_contents (other, "not a trace", -1, NULL));
  }

  g_assert_cmpint (ks_trace_detect_format (folder, &error), ==, KS_FORMAT_KINETO_JSON);
  g_assert_no_error (error);

  trace = ks_trace_load (folder, NULL, NULL, &error);
  g_assert_no_error (error);
  ks_trace_get_counts (trace, &c);
  g_assert_cmpuint (c.by_kind[KS_SLICE_KERNEL], ==, 210 + 88);
  g_assert_cmpuint (c.launch_flows, ==, 237 + 108);
  g_assert_cmpuint (c.flows - c.launch_flows, ==, 48 + 32);
  g_assert_cmpuint (c.memory_events, ==, 408 + 176);
  g_assert_cmpuint (trace->n_processes, ==, 2 + 3);
  g_assert_cmpuint (trace->n_threads, ==, 3 + 7);
  g_assert_cmpuint (trace->n_gpus, ==, 1);

  for (guint32 t = 0; t < trace->n_tracks; t++)
    if (trace->tracks[t].kind == KS_TRACK_STREAM)
      {
        streams++;
        g_assert_cmpuint (trace->tracks[t].group, <, 2);
        groups[trace->tracks[t].group] = TRUE;
      }
  g_assert_cmpuint (streams, ==, 2);
  g_assert_true (groups[0] && groups[1]);
  for (guint32 i = 0; i < trace->n_processes; i++)
    g_assert_cmpuint (trace->processes[i].group, <, 2);
  /* files are read in name order: seed_cnn (pid 455) is group 0 */
  g_assert_cmpuint (trace->processes[ks_trace_find_process (trace, 455)].group, ==, 0);
  g_assert_cmpuint (trace->processes[ks_trace_find_process (trace, 625)].group, ==, 1);

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *dst = g_build_filename (dir, names[i], NULL);

      g_unlink (dst);
    }
  {
    g_autofree char *other = g_build_filename (dir, "notes.txt", NULL);

    g_unlink (other);
  }
  g_rmdir (dir);
}

/* Two ranks whose processes have the same pid (containers): kept apart. */
static void
test_folder_same_pid (void)
{
  g_autofree char *dir = g_dir_make_tmp ("ks-folder-XXXXXX", NULL);
  g_autofree char *src = fixture_path ("seed_cnn.pt.trace.json.gz");
  const char *names[] = { "rank0.pt.trace.json.gz", "rank1.pt.trace.json.gz" };
  g_autofree char *data = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(GFile) folder = g_file_new_for_path (dir);
  KsTraceCounts c;
  guint renamed = 0;
  gsize len;

  g_assert_true (g_file_get_contents (src, &data, &len, NULL));
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *dst = g_build_filename (dir, names[i], NULL);

      g_assert_true (g_file_set_contents (dst, data, len, NULL));
    }

  trace = ks_trace_load (folder, NULL, NULL, &error);
  g_assert_no_error (error);
  ks_trace_get_counts (trace, &c);
  g_assert_cmpuint (trace->n_processes, ==, 4);
  g_assert_cmpuint (c.by_kind[KS_SLICE_KERNEL], ==, 2 * 210);
  /* correlation ids repeat between the files but link within each */
  g_assert_cmpuint (c.launch_flows, ==, 2 * 237);
  g_assert_cmpuint (c.flows - c.launch_flows, ==, 2 * 48);
  for (guint32 i = 0; i < trace->n_processes; i++)
    if (g_strcmp0 (ks_trace_string (trace, trace->processes[i].original), "455") == 0)
      {
        renamed++;
        g_assert_cmpuint (trace->processes[i].group, ==, 1);
        g_assert_cmpint (trace->processes[i].pid, >=, 0x800000);
        g_assert_cmpstr (ks_trace_string (trace, trace->processes[i].name), ==, "python3");
      }
  g_assert_cmpuint (renamed, ==, 1);
  g_assert_cmpuint (trace->processes[ks_trace_find_process (trace, 455)].group, ==, 0);

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *dst = g_build_filename (dir, names[i], NULL);

      g_unlink (dst);
    }
  g_rmdir (dir);
}

static void
test_detect (void)
{
  g_autofree char *path = fixture_path ("gpt_3steps.pt.trace.json.gz");
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  guint8 sqlite[100] = "SQLite format 3";

  g_assert_cmpint (ks_trace_detect_format (file, &error), ==, KS_FORMAT_KINETO_JSON);
  g_assert_no_error (error);
  g_assert_cmpint (ks_trace_detect_format_from_data ((const guint8 *)"[{\"ph\":\"X\"}]", 12), ==,
                   KS_FORMAT_CHROME_JSON);
  g_assert_cmpint (ks_trace_detect_format_from_data ((const guint8 *)"\xef\xbb\xbf {\"schemaVersion\":1}", 23), ==,
                   KS_FORMAT_KINETO_JSON);
  g_assert_cmpint (ks_trace_detect_format_from_data ((const guint8 *)"hello", 5), ==, KS_FORMAT_UNKNOWN);
  g_assert_cmpint (ks_trace_detect_format_from_data (sqlite, sizeof sqlite), ==, KS_FORMAT_NSYS_SQLITE);
  memcpy (sqlite + 68, "KSCO", 4);
  g_assert_cmpint (ks_trace_detect_format_from_data (sqlite, sizeof sqlite), ==, KS_FORMAT_KSCOPE);
}

typedef struct
{
  GMainLoop *loop;
  KsTrace   *trace;
  GError    *error;
} AsyncData;

static void
on_loaded (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  AsyncData *d = user_data;

  d->trace = ks_trace_load_finish (result, &d->error);
  g_main_loop_quit (d->loop);
}

static void
test_async (void)
{
  g_autofree char *path = fixture_path ("loader_bound.pt.trace.json.gz");
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(KsProgress) progress = ks_progress_new ();
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autofree char *message = NULL;
  AsyncData d = { 0 };

  d.loop = g_main_loop_new (NULL, FALSE);
  ks_trace_load_async (file, progress, NULL, on_loaded, &d);
  g_main_loop_run (d.loop);
  g_assert_no_error (d.error);
  g_assert_nonnull (d.trace);
  g_assert_cmpfloat (ks_progress_get_fraction (progress), ==, 1.0);
  message = ks_progress_dup_message (progress);
  g_assert_nonnull (message);
  g_assert_nonnull (ks_trace_get_metadata (d.trace, "load_time_ms"));
  g_clear_object (&d.trace);

  /* cancelled before it starts */
  g_cancellable_cancel (cancellable);
  ks_trace_load_async (file, NULL, cancellable, on_loaded, &d);
  g_main_loop_run (d.loop);
  g_assert_null (d.trace);
  g_assert_error (d.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&d.error);
  g_main_loop_unref (d.loop);
}

/* Cancelling while the inflate thread runs stops both threads cleanly. */
static void
cancel_on_progress (KsProgress *progress,
                    gpointer    user_data)
{
  if (ks_progress_get_fraction (progress) > 0.0)
    g_cancellable_cancel (user_data);
}

static void
test_cancel_midway (void)
{
  g_autofree char *path = fixture_path ("gpt_3steps.pt.trace.json.gz");
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(KsProgress) progress = ks_progress_new ();
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;

  ks_progress_set_notify (progress, cancel_on_progress, g_object_ref (cancellable), g_object_unref);
  trace = ks_trace_load (file, progress, cancellable, &error);
  g_assert_null (trace);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  /* it stopped early: the fixture inflates to 13 blocks of 1 MiB */
  g_assert_cmpfloat (ks_progress_get_fraction (progress), <, 0.5);

  /* the same on the uncompressed text */
  {
    g_autoptr(GFileInputStream) raw = g_file_read (file, NULL, NULL);
    g_autoptr(GZlibDecompressor) dec = g_zlib_decompressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP);
    g_autoptr(GInputStream) in = g_converter_input_stream_new (G_INPUT_STREAM (raw), G_CONVERTER (dec));
    g_autoptr(GOutputStream) out = g_memory_output_stream_new_resizable ();
    g_autoptr(KsProgress) progress2 = ks_progress_new ();
    g_autoptr(GCancellable) cancellable2 = g_cancellable_new ();
    g_autoptr(GFile) plain = NULL;
    g_autofree char *plain_path = NULL;

    g_output_stream_splice (out, in, G_OUTPUT_STREAM_SPLICE_CLOSE_TARGET, NULL, NULL);
    plain_path = write_temp ("plain.json", g_memory_output_stream_get_data (G_MEMORY_OUTPUT_STREAM (out)),
                             g_memory_output_stream_get_data_size (G_MEMORY_OUTPUT_STREAM (out)));
    plain = g_file_new_for_path (plain_path);
    g_clear_error (&error);
    ks_progress_set_notify (progress2, cancel_on_progress, g_object_ref (cancellable2), g_object_unref);
    trace = ks_trace_load (plain, progress2, cancellable2, &error);
    g_assert_null (trace);
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
    g_assert_cmpfloat (ks_progress_get_fraction (progress2), <, 0.5);
    remove_temp (plain_path);
  }
}

/* Every file of the shared corpus opens, or fails with a message that
 * names it. */
static void
collect_files (const char *dir,
               GPtrArray  *out)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  if (d == NULL)
    return;
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);

      if (g_str_equal (name, "_tools") || g_str_has_suffix (name, ".md"))
        continue;
      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        collect_files (path, out);
      else
        g_ptr_array_add (out, g_steal_pointer (&path));
    }
}

static void
test_corpus (void)
{
  const char *shared = g_getenv ("KS_SHARED_DIR");
  g_autofree char *corpus = shared ? g_build_filename (shared, "corpus", NULL) : NULL;
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func (g_free);
  /* not traces: each must fail with a clear message */
  const char *not_traces[] = {
    "google_cloud_trace.json", "benchmark_simple_add_et.json.gz", "memory_timeline.raw.gz",
    "simple_trace_zip.zip", "cloverleaf_gpu_trace.csv", "cloverleaf-cuda_api_trace.csv",
  };
  guint loaded = 0, failed = 0;

  if (corpus == NULL || !g_file_test (corpus, G_FILE_TEST_IS_DIR))
    {
      g_test_skip ("the shared corpus (KS_SHARED_DIR/corpus) is absent");
      return;
    }

  collect_files (corpus, files);
  g_assert_cmpuint (files->len, >, 50);

  for (guint i = 0; i < files->len; i++)
    {
      const char *path = g_ptr_array_index (files, i);
      g_autoptr(GError) error = NULL;
      g_autoptr(KsTrace) trace = load_path (path, &error);
      gboolean expect_failure = FALSE;

      for (guint k = 0; k < G_N_ELEMENTS (not_traces); k++)
        if (g_str_has_suffix (path, not_traces[k]))
          expect_failure = TRUE;

      if (trace != NULL)
        {
          g_assert_false (expect_failure);
          loaded++;
        }
      else
        {
          g_assert_nonnull (error);
          g_test_message ("%s", error->message);
          {
            g_autoptr(GFile) file = g_file_new_for_path (path);
            g_autofree char *name = g_file_get_parse_name (file);

            g_assert_true (g_str_has_prefix (error->message, name));
          }
          g_assert_true (expect_failure);
          failed++;
        }
    }
  g_test_message ("corpus: %u loaded, %u refused", loaded, failed);
  g_assert_cmpuint (loaded, >=, 90);
}

/* Spot checks against the corpus manifest's computed counts. */
static void
test_corpus_counts (void)
{
  const char *shared = g_getenv ("KS_SHARED_DIR");
  const struct { const char *file; guint64 kernel, runtime, memory; } checks[] = {
    { "hta/negative_queue_length_values_check/rank0.json.gz", 6080, 33924, 0 },
    { "kineto/tb_plugin_samples_2021-06/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz", 8772, 11923, 12838 },
    { "kineto/tb_plugin_samples_2021-01-10_arrayform/resnet50_num_workers_0/worker0.pt.trace.json.gz", 9538, 10800, 0 },
    { "switchtransformers/trace.json", 494, 858, 1070 },
  };

  if (shared == NULL)
    {
      g_test_skip ("KS_SHARED_DIR is not set");
      return;
    }

  for (guint i = 0; i < G_N_ELEMENTS (checks); i++)
    {
      g_autofree char *path = g_build_filename (shared, "corpus", checks[i].file, NULL);
      g_autoptr(GError) error = NULL;
      g_autoptr(KsTrace) trace = NULL;
      KsTraceCounts c;

      if (!g_file_test (path, G_FILE_TEST_EXISTS))
        {
          g_test_skip ("corpus file absent");
          return;
        }
      trace = load_path (path, &error);
      g_assert_no_error (error);
      ks_trace_get_counts (trace, &c);
      g_assert_cmpuint (c.by_kind[KS_SLICE_KERNEL], ==, checks[i].kernel);
      g_assert_cmpuint (c.by_kind[KS_SLICE_CUDA_RUNTIME], ==, checks[i].runtime);
      g_assert_cmpuint (c.memory_events, ==, checks[i].memory);
    }
}

/* 100,000 GPUs in "deviceProperties", in no order, one given twice: all
 * there, the last description of each. */
static void
test_many_device_properties (void)
{
  g_autoptr(GString) json = g_string_new ("{\"deviceProperties\":[");
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  const guint n = 100000;

  for (guint i = 0; i < n; i++)
    {
      guint id = (i * 7919u) % n;

      g_string_append_printf (json, "%s{\"id\":%u,\"name\":\"GPU %u\",\"totalGlobalMem\":%" G_GUINT64_FORMAT ","
                              "\"computeMajor\":%u,\"computeMinor\":%u,\"numSms\":%u,\"warpSize\":32,"
                              "\"maxThreadsPerBlock\":1024,\"regsPerMultiprocessor\":%u}",
                              i > 0 ? "," : "", id, id, (guint64)id * 1024 + 1, id % 10, id % 7,
                              1 + id % 200, 65536 + id);
    }
  g_string_append (json, ",{\"id\":5,\"name\":\"again\",\"numSms\":7}],\"traceEvents\":["
                         "{\"ph\":\"X\",\"name\":\"k\",\"cat\":\"kernel\",\"pid\":0,\"tid\":7,\"ts\":1,\"dur\":1,"
                         "\"args\":{\"device\":99999,\"stream\":7}}]}");
  trace = load_text (json->str, json->len, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (trace->n_gpus, ==, n);
  for (guint id = 0; id < n; id++)
    {
      const KsGpu *gpu = ks_trace_find_gpu (trace, id);
      g_autofree char *name = g_strdup_printf ("GPU %u", id);

      g_assert_nonnull (gpu);
      g_assert_true (gpu == &trace->gpus[id]);
      g_assert_cmpint (gpu->device, ==, id);
      if (id == 5)
        {
          g_assert_cmpstr (ks_trace_string (trace, gpu->name), ==, "again");
          g_assert_cmpuint (gpu->sm_count, ==, 7);
          g_assert_cmpuint (gpu->total_memory, ==, 0);
          continue;
        }
      g_assert_cmpstr (ks_trace_string (trace, gpu->name), ==, name);
      g_assert_cmpuint (gpu->total_memory, ==, (guint64)id * 1024 + 1);
      g_assert_cmpuint (gpu->compute_major, ==, id % 10);
      g_assert_cmpuint (gpu->compute_minor, ==, id % 7);
      g_assert_cmpuint (gpu->sm_count, ==, 1 + id % 200);
      g_assert_cmpuint (gpu->warp_size, ==, 32);
      g_assert_cmpuint (gpu->max_threads_per_block, ==, 1024);
      g_assert_cmpuint (gpu->registers_per_sm, ==, 65536 + id);
    }
  g_assert_null (ks_trace_find_gpu (trace, n));
  g_assert_null (ks_trace_find_gpu (trace, -1));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (fixtures); i++)
    {
      g_autofree char *name = g_strdup_printf ("/json/fixture/%s", fixtures[i].file);

      g_test_add_data_func (name, &fixtures[i], test_fixture);
    }
  g_test_add_func ("/json/fixture-details", test_fixture_details);
  g_test_add_func ("/json/chrome-features", test_chrome_features);
  g_test_add_func ("/json/array-form-memory", test_array_form_and_kineto_memory);
  g_test_add_func ("/json/id2", test_id2);
  g_test_add_func ("/json/begin-end-args", test_begin_end_args);
  g_test_add_func ("/json/args-white-space", test_args_white_space);
  g_test_add_func ("/json/compaction-paths", test_compaction_paths);
  g_test_add_func ("/json/shrunk-while-reading", test_shrunk_while_reading);
  g_test_add_func ("/json/deep-unused-arg", test_deep_unused_arg);
  g_test_add_func ("/json/flow-ids", test_flow_ids);
  g_test_add_func ("/json/negative-ts", test_negative_ts);
  g_test_add_func ("/json/folder", test_folder);
  g_test_add_func ("/json/folder-same-pid", test_folder_same_pid);
  g_test_add_func ("/json/detect", test_detect);
  g_test_add_func ("/json/async", test_async);
  g_test_add_func ("/json/cancel-midway", test_cancel_midway);
  g_test_add_func ("/json/corpus", test_corpus);
  g_test_add_func ("/json/corpus-counts", test_corpus_counts);
  g_test_add_func ("/json/many-device-properties", test_many_device_properties);
  return g_test_run ();
}
