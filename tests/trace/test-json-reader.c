/* test-json-reader.c
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

static char *
fixture_path (const char *name)
{
  const char *dir = g_getenv ("KS_FIXTURES_DIR");

  g_assert_nonnull (dir);
  return g_build_filename (dir, name, NULL);
}

static KsTrace *
load_path (const char  *path,
           GError     **error)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);

  return ks_trace_load (file, NULL, NULL, error);
}

static KsTrace *
load_text (const char  *json,
           gssize       len,
           GError     **error)
{
  g_autoptr(GInputStream) stream = NULL;

  if (len < 0)
    len = strlen (json);
  stream = g_memory_input_stream_new_from_data (g_memdup2 (json, len), len, g_free);
  return ks_json_reader_load_stream (stream, "inline.json", len, NULL, NULL, error);
}

static char *
write_temp (const char *name,
            const void *data,
            gsize       len)
{
  g_autofree char *dir = g_dir_make_tmp ("ks-json-XXXXXX", NULL);
  char *path = g_build_filename (dir, name, NULL);

  g_assert_true (g_file_set_contents (path, data, len, NULL));
  return path;
}

static void
remove_temp (const char *path)
{
  g_autofree char *dir = g_path_get_dirname (path);

  g_unlink (path);
  g_rmdir (dir);
}

static const char *
warnings (KsTrace *trace)
{
  const char *w = ks_trace_get_metadata (trace, "warnings");

  return w ? w : "";
}

/* The track of the trace's one thread. */
static const KsTrack *
only_thread_track (KsTrace *trace)
{
  g_assert_cmpuint (trace->n_threads, ==, 1);
  return &trace->tracks[trace->threads[0].track];
}

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

static guint n_warnings (KsTrace *trace);

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

/* Bad input */

static void
assert_load_fails (const char *json,
                   gssize      len,
                   const char *expect)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = load_text (json, len, &error);

  g_assert_null (trace);
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  g_assert_true (g_str_has_prefix (error->message, "inline.json: "));
  if (expect != NULL && strstr (error->message, expect) == NULL)
    g_error ("expected “%s” in “%s”", expect, error->message);
}

static void
test_bad_empty (void)
{
  assert_load_fails ("", 0, "empty");
  assert_load_fails ("   \n\t ", -1, "white space");
}

static void
test_bad_not_trace (void)
{
  /* a PyTorch execution trace and a Google Cloud trace */
  assert_load_fails ("{\"schema\":\"1.0.1\",\"pid\":1,\"nodes\":[{\"id\":1}]}", -1, "not a trace");
  assert_load_fails ("{\"projectId\":\"p\",\"spans\":[{\"spanId\":\"1\"}]}", -1, "traceEvents");
  assert_load_fails ("[[1,2,3],[4,5,6]]", -1, "not a trace");
  assert_load_fails ("42", -1, "neither an object nor a list");
  assert_load_fails ("\"traceEvents\"", -1, "neither an object nor a list");
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

/* A digest of the names and argument texts of every slice. */
static char *
slices_digest (KsTrace *trace)
{
  g_autoptr(GString) args_buf = g_string_new (NULL);
  g_autoptr(GChecksum) sum = g_checksum_new (G_CHECKSUM_SHA256);
  guint64 n = 0;

  for (guint32 t = 0; t < trace->n_tracks; t++)
    {
      const KsTrack *track = &trace->tracks[t];

      for (guint32 i = 0; i < track->n_slices; i++)
        {
          const char *args = ks_trace_slice_args (trace, track, i, args_buf);
          const char *name = ks_trace_string (trace, track->name_id[i]);

          g_checksum_update (sum, (const guchar *)name, strlen (name) + 1);
          if (args != NULL)
            g_checksum_update (sum, (const guchar *)args, strlen (args) + 1);
          n++;
        }
    }
  return g_strdup_printf ("%" G_GUINT64_FORMAT " slices %s", n, g_checksum_get_string (sum));
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

/* Whether this processor drops white space 64 bytes at a time (AVX-512). */
static gboolean
have_avx512 (void)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  return __builtin_cpu_supports ("avx512bw") && __builtin_cpu_supports ("avx512vbmi2");
#else
  return FALSE;
#endif
}

/* Runs the current test again in a subprocess that drops white space 16
 * bytes at a time, and expects it to pass. */
static void
trap_without_avx512 (void)
{
  g_setenv ("KS_JSON_NO_AVX512", "1", TRUE);
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_unsetenv ("KS_JSON_NO_AVX512");
  g_test_trap_assert_passed ();
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

/* Another program truncating a plain file while it is read (mapped): the
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
  trace = ks_trace_load (file, progress, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (warnings (trace), "truncated"));
  /* at least the blocks parsed before the truncation, at most its size */
  g_assert_cmpuint (only_thread_track (trace)->n_slices, >=, n / 3 - 1);
  g_assert_cmpuint (only_thread_track (trace)->n_slices, <, n / 2);
  remove_temp (path);
}

/* White space is dropped before parsing: positions must still be the
 * file's, also past the 1 MiB read blocks, and "1 2" must not become 12. */
static void
test_bad_syntax_far (void)
{
  g_autoptr(GString) json = g_string_new ("[\n");
  g_autofree char *expect = NULL;
  gsize prefix;
  guint lines = 2;

  while (json->len < 3 * 1024 * 1024)
    {
      g_string_append (json, "  {\"ph\": \"X\", \"name\": \"a b\", \"ts\": 1.5, \"dur\": 2 },\n");
      lines++;
    }
  prefix = json->len;
  g_string_append (json, "  {\"ph\" \"X\"}]");
  /* yajl stops after the token "X": 2 spaces + {"ph" "X" */
  expect = g_strdup_printf ("invalid JSON at line %u, byte %" G_GSIZE_FORMAT ":", lines, prefix + 11);
  assert_load_fails (json->str, json->len, expect);

  assert_load_fails ("[{\"ph\":\"X\",\"ts\":1 2}]", -1, "invalid JSON at line 1, byte 18");
  /* the error is at the second number, after all the white space */
  assert_load_fails ("[{\"ph\":\"X\",\"ts\":1 \n 2}]", -1, "invalid JSON at line 2, byte 20");
  assert_load_fails ("[{\"ph\":\"X\",\"ts\":1,\"a\":true\n\tfalse}]", -1, "invalid JSON at line 2, byte ");
}

static gint
compare_strings (gconstpointer a,
                 gconstpointer b,
                 gpointer      user_data)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/* The trace's flows other than launches as "from>to" slice names,
 * sorted, each checked to be of @category. */
static char *
flow_pairs (KsTrace    *trace,
            const char *category)
{
  g_autoptr(GPtrArray) pairs = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < trace->n_flows; i++)
    {
      const KsFlow *f = &trace->flows[i];

      if (f->kind == KS_FLOW_LAUNCH)
        continue;
      g_assert_cmpuint (f->kind, ==, KS_FLOW_OTHER);
      g_assert_cmpstr (ks_trace_string (trace, f->category), ==, category);
      g_ptr_array_add (pairs, g_strdup_printf ("%s>%s",
                                               ks_trace_string (trace, trace->tracks[f->from_track].name_id[f->from_slice]),
                                               ks_trace_string (trace, trace->tracks[f->to_track].name_id[f->to_slice])));
    }
  g_ptr_array_sort_with_data (pairs, compare_strings, NULL);
  g_ptr_array_add (pairs, NULL);
  return g_strjoinv (" ", (char **) pairs->pdata);
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

/* Two words that only white space parts must stay apart wherever the
 * 64-, 16- and 1-byte loops meet them; in a subprocess the same again
 * without AVX-512. */
static void
test_bad_words_apart (void)
{
  static const char *bad[] = { "1 2", "1\t\t-2", "tru e", "true false", "nu\nll", "1.5 e3", "1 )" };

  if (g_test_subprocess () || g_getenv ("KS_JSON_NO_AVX512") == NULL)
    {
      for (guint b = 0; b < G_N_ELEMENTS (bad); b++)
        for (guint pad = 0; pad < 140; pad += 3)
          {
            g_autoptr(GString) json = g_string_new ("[");
            g_autoptr(GError) error = NULL;
            g_autoptr(KsTrace) trace = NULL;

            g_string_append_printf (json, "%*s{\"ph\":\"X\",\"name\":\"%*s\",\"ts\":0,\"args\":{\"v\":%s}}]",
                                    (int)pad, "", (int)(pad % 70), "", bad[b]);
            trace = load_text (json->str, json->len, &error);
            g_assert_null (trace);
            g_assert_nonnull (strstr (error->message, "invalid JSON"));
          }
      if (g_test_subprocess ())
        return;
    }

  trap_without_avx512 ();
}

static void
test_bad_syntax (void)
{
  static const char nul[] = "[{\"ph\":\"X\",\"ts\":1,\"dur\":1},\0{\"ph\":\"X\"}]";

  assert_load_fails (nul, sizeof nul - 1, "invalid JSON at line 1, byte 28");
  assert_load_fails ("[\n{\"ph\":\"X\",\"ts\":1},\n\n{\"ph\" \"X\"}]", -1, "invalid JSON at line 4, byte 31");
  assert_load_fails ("[{\"ph\":\"X\",\"ts\":1,,}]", -1, "invalid JSON");
  assert_load_fails ("{\"traceEvents\":[{\"ph\":\"X\" \"ts\":1}]}", -1, "invalid JSON");
}

/* the same through gzip: the line is found by inflating again */
static void
test_bad_syntax_gzip (void)
{
  const char *json = "{\"traceEvents\":[\n{\"ph\":\"X\",\"ts\":1},\n{\"ph\":\"X\",,}]}";
  g_autoptr(GZlibCompressor) comp = g_zlib_compressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP, 6);
  g_autoptr(GInputStream) raw = g_memory_input_stream_new_from_data (json, strlen (json), NULL);
  g_autoptr(GInputStream) in = g_converter_input_stream_new (raw, G_CONVERTER (comp));
  g_autoptr(GOutputStream) out = g_memory_output_stream_new_resizable ();
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autofree char *path = NULL;

  g_output_stream_splice (out, in, G_OUTPUT_STREAM_SPLICE_CLOSE_TARGET, NULL, &error);
  g_assert_no_error (error);
  path = write_temp ("syntax.json.gz", g_memory_output_stream_get_data (G_MEMORY_OUTPUT_STREAM (out)),
                     g_memory_output_stream_get_data_size (G_MEMORY_OUTPUT_STREAM (out)));
  trace = load_path (path, &error);
  g_assert_null (trace);
  g_assert_nonnull (error);
  g_assert_true (g_str_has_prefix (error->message, path));
  g_assert_nonnull (strstr (error->message, "invalid JSON at line 3, byte "));
  remove_temp (path);
}

static void
test_bad_deep_nesting (void)
{
  g_autoptr(GString) json = g_string_new ("[{\"ph\":\"X\",\"ts\":1,\"args\":");

  for (guint i = 0; i < 100000; i++)
    g_string_append (json, "[");
  assert_load_fails (json->str, json->len, "nested deeper than");
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

static void
test_bad_types_and_numbers (void)
{
  const char *json =
    "{\"traceEvents\":["
    "{\"ph\":\"X\",\"name\":\"ok\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1},"
    "{\"ph\":\"X\",\"name\":\"bad-ts\",\"pid\":1,\"tid\":1,\"ts\":\"soon\",\"dur\":1},"
    "{\"ph\":\"X\",\"name\":\"huge-ts\",\"pid\":1,\"tid\":1,\"ts\":1e400,\"dur\":1},"
    "{\"ph\":\"X\",\"name\":\"huge-dur\",\"pid\":1,\"tid\":1,\"ts\":2,\"dur\":9e300},"
    "{\"ph\":\"X\",\"name\":\"no-ts\",\"pid\":1,\"tid\":1},"
    "{\"ph\":\"X\",\"name\":\"obj-pid\",\"pid\":{\"a\":1},\"tid\":[1],\"ts\":3,\"dur\":1,\"args\":[1,2]},"
    "{\"ph\":\"X\",\"name\":\"big-args\",\"pid\":1,\"tid\":1,\"ts\":4,\"dur\":1,"
    "\"args\":{\"correlation\":18446744073709551616,\"External id\":-5,\"v\":1e400,\"w\":123456789012345678901234567890}},"
    "{\"ph\":5,\"name\":7,\"cat\":[],\"pid\":1.5,\"tid\":true,\"ts\":5},"
    "{\"name\":\"no-phase\",\"ts\":6},"
    "{\"ph\":\"O\",\"name\":\"snapshot\",\"id\":1,\"ts\":6},"
    "17, null, \"text\", [1],"
    "{\"ph\":\"X\",\"name\":\"string-ts\",\"pid\":\"1\",\"tid\":\"1\",\"ts\":\"7\",\"dur\":\"0.5\"}"
    "]}";
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = load_text (json, -1, &error);
  KsTraceCounts c;

  g_assert_no_error (error);
  ks_trace_get_counts (trace, &c);
  /* ok, obj-pid, big-args, string-ts */
  g_assert_cmpuint (c.by_kind[KS_SLICE_GENERIC], ==, 4);
  g_assert_nonnull (strstr (warnings (trace), "4 events without a valid timestamp"));
  g_assert_nonnull (strstr (warnings (trace), "2 objects without a phase"));
  g_assert_nonnull (strstr (warnings (trace), "4 items of the event list are not objects"));
  g_assert_nonnull (strstr (warnings (trace), "unsupported phases"));
  for (guint32 t = 0; t < trace->n_tracks; t++)
    for (guint32 i = 0; i < trace->tracks[t].n_slices; i++)
      {
        g_assert_cmpuint (trace->tracks[t].correlation[i], ==, 0);
        g_assert_cmpuint (trace->tracks[t].external_id[i], ==, 0);
      }
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

static void
test_truncated_json (void)
{
  g_autofree char *path = fixture_path ("seed_cnn.pt.trace.json.gz");
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GFileInputStream) raw = g_file_read (file, NULL, NULL);
  g_autoptr(GZlibDecompressor) dec = g_zlib_decompressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP);
  g_autoptr(GInputStream) in = g_converter_input_stream_new (G_INPUT_STREAM (raw), G_CONVERTER (dec));
  g_autoptr(GOutputStream) out = g_memory_output_stream_new_resizable ();
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) full = NULL;
  g_autoptr(KsTrace) cut = NULL;
  const char *text;
  gsize len, at;
  KsTraceCounts cf, cc;

  g_output_stream_splice (out, in, G_OUTPUT_STREAM_SPLICE_CLOSE_TARGET, NULL, &error);
  g_assert_no_error (error);
  text = g_memory_output_stream_get_data (G_MEMORY_OUTPUT_STREAM (out));
  len = g_memory_output_stream_get_data_size (G_MEMORY_OUTPUT_STREAM (out));

  full = load_text (text, len, &error);
  g_assert_no_error (error);

  /* cut in the middle of an event, as a crashed profiler leaves it */
  at = len / 2;
  while (text[at] != '"')
    at++;
  cut = load_text (text, at + 3, &error);
  g_assert_no_error (error);
  ks_trace_get_counts (full, &cf);
  ks_trace_get_counts (cut, &cc);
  g_assert_cmpuint (cc.by_kind[KS_SLICE_CPU_OP] + cc.by_kind[KS_SLICE_PYTHON], >, 0);
  g_assert_cmpuint (cc.by_kind[KS_SLICE_PYTHON], <, cf.by_kind[KS_SLICE_PYTHON]);
  {
    g_autofree char *expect = g_strdup_printf ("truncated at byte %" G_GSIZE_FORMAT, at + 3);

    g_assert_nonnull (strstr (warnings (cut), expect));
  }

  /* cut before any event */
  g_clear_object (&cut);
  cut = load_text (text, 40, &error);
  g_assert_null (cut);
  g_assert_nonnull (strstr (error->message, "truncated"));
}

static void
test_truncated_gzip (void)
{
  g_autofree char *path = fixture_path ("loader_bound.pt.trace.json.gz");
  g_autofree char *data = NULL;
  g_autofree char *cut_path = NULL;
  g_autofree char *bad_path = NULL;
  g_autofree char *tiny_path = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  gsize len;

  g_assert_true (g_file_get_contents (path, &data, &len, NULL));

  cut_path = write_temp ("cut.json.gz", data, len * 2 / 3);
  trace = load_path (cut_path, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (warnings (trace), "compressed data ends early"));
  g_assert_nonnull (strstr (warnings (trace), cut_path));
  g_assert_cmpuint (trace->tracks[0].n_slices, >, 0);
  remove_temp (cut_path);

  /* corrupt deflate data in the middle */
  memset (data + len / 2, 0xff, 64);
  bad_path = write_temp ("bad.json.gz", data, len);
  g_clear_object (&trace);
  trace = load_path (bad_path, &error);
  g_assert_null (trace);
  g_assert_nonnull (error);
  g_assert_true (g_str_has_prefix (error->message, bad_path));
  g_assert_nonnull (strstr (error->message, "gzip"));
  g_clear_error (&error);
  remove_temp (bad_path);

  /* a gzip header and nothing else */
  tiny_path = write_temp ("tiny.json.gz", data, 12);
  trace = load_path (tiny_path, &error);
  g_assert_null (trace);
  g_assert_nonnull (strstr (error->message, "truncated"));
  remove_temp (tiny_path);
}

static void
test_bad_files (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autofree char *empty = write_temp ("empty.json", "", 0);
  g_autofree char *zip = write_temp ("trace.zip", "PK\x03\x04 rest of a zip", 18);
  g_autofree char *csv = write_temp ("gpu.csv", "timestamp, index\n1, 2\n", 22);
  g_autofree char *dir = g_dir_make_tmp ("ks-empty-XXXXXX", NULL);

  trace = load_path ("/nonexistent/trace.json", &error);
  g_assert_null (trace);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_assert_true (g_str_has_prefix (error->message, "/nonexistent/trace.json: "));
  g_clear_error (&error);

  trace = load_path (empty, &error);
  g_assert_null (trace);
  g_assert_nonnull (strstr (error->message, "empty"));
  g_assert_true (g_str_has_prefix (error->message, empty));
  g_clear_error (&error);

  trace = load_path (zip, &error);
  g_assert_null (trace);
  g_assert_nonnull (strstr (error->message, "zip archives are not supported"));
  g_clear_error (&error);

  trace = load_path (csv, &error);
  g_assert_null (trace);
  g_assert_nonnull (strstr (error->message, "not a trace file"));
  g_clear_error (&error);

  trace = load_path (dir, &error);
  g_assert_null (trace);
  g_assert_nonnull (strstr (error->message, "no trace files"));
  g_clear_error (&error);

  remove_temp (empty);
  remove_temp (zip);
  remove_temp (csv);
  g_rmdir (dir);
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

/* Hostile and broken files */

#define READ_BLOCK (1024 * 1024)   /* the reader's */

/* Compresses @len bytes at @data as one gzip member with zlib, ending a
 * deflate block (Z_FULL_FLUSH: byte-aligned, no back references across
 * it) after every @flush_every input bytes; the compressed offsets where
 * the blocks after those flushes start go to @flush_points. */
static GByteArray *
gzip_with_flushes (const char *data,
                   gsize       len,
                   gsize       flush_every,
                   GArray     *flush_points)
{
  GByteArray *out = g_byte_array_new ();
  z_stream z = { 0 };
  guint8 buf[64 * 1024];
  gsize done = 0;
  int ret;

  g_assert_cmpint (deflateInit2 (&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), ==, Z_OK);
  do
    {
      gsize n = MIN (flush_every, len - done);
      int flush = done + n < len ? Z_FULL_FLUSH : Z_FINISH;

      z.next_in = (Bytef *)data + done;
      z.avail_in = n;
      do
        {
          z.next_out = buf;
          z.avail_out = sizeof buf;
          ret = deflate (&z, flush);
          g_assert_cmpint (ret, !=, Z_STREAM_ERROR);
          g_byte_array_append (out, buf, sizeof buf - z.avail_out);
        }
      while (z.avail_out == 0);
      done += n;
      if (flush == Z_FULL_FLUSH && flush_points != NULL)
        {
          guint64 at = out->len;

          g_array_append_val (flush_points, at);
        }
    }
  while (done < len);
  g_assert_cmpint (ret, ==, Z_STREAM_END);
  deflateEnd (&z);
  return out;
}

static char *
write_temp_gzip (const char *name,
                 const char *data,
                 gsize       len)
{
  g_autoptr(GByteArray) gz = gzip_with_flushes (data, len, G_MAXSIZE, NULL);

  return write_temp (name, gz->data, gz->len);
}

/* Every string of the model and every argument text is valid UTF-8. */
static void
assert_model_utf8 (KsTrace *trace)
{
  g_autoptr(GString) args_buf = g_string_new (NULL);
  for (guint32 i = 0; i < trace->n_strings; i++)
    g_assert_true (g_utf8_validate (ks_trace_string (trace, i), -1, NULL));
  for (guint32 t = 0; t < trace->n_tracks; t++)
    for (guint32 i = 0; i < trace->tracks[t].n_slices; i++)
      {
        const char *args = ks_trace_slice_args (trace, &trace->tracks[t], i, args_buf);

        g_assert_true (args == NULL || g_utf8_validate (args, -1, NULL));
      }
}

static guint32
find_slice (KsTrace        *trace,
            const char     *name,
            const KsTrack **track_out)
{
  for (guint32 t = 0; t < trace->n_tracks; t++)
    for (guint32 i = 0; i < trace->tracks[t].n_slices; i++)
      if (g_str_equal (ks_trace_string (trace, trace->tracks[t].name_id[i]), name))
        {
          *track_out = &trace->tracks[t];
          return i;
        }
  g_error ("no slice named “%s”", name);
}

#define FFFD "\xef\xbf\xbd"

/* Invalid UTF-8 and unpaired surrogates, wherever the reader keeps
 * strings, become U+FFFD (one per maximal invalid subsequence, as
 * Python's errors="replace" does); the file loads, with one warning that
 * counts them. */
static void
test_invalid_utf8 (void)
{
  g_autoptr(GString) args_buf = g_string_new (NULL);
  const char *json =
    "{\"traceEvents\":["
    /* raw bytes: a stray byte (twice), an overlong '/', CESU-8, beyond U+10FFFF, a cut sequence */
    "{\"ph\":\"X\",\"name\":\"bad \xff name\",\"cat\":\"c\xc0\xaf" "at\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,"
    "\"cname\":\"\xff\",\"args\":{\"s\":\"a\xff" "b\",\"k\xfe\":1,\"e\":\"\\udfff\"}},"
    "{\"ph\":\"X\",\"name\":\"bad \xff name\",\"pid\":1,\"tid\":1,\"ts\":2,\"dur\":1},"
    "{\"ph\":\"X\",\"name\":\"cesu \xed\xa0\xbd\xed\xb8\x80\",\"pid\":1,\"tid\":1,\"ts\":3,\"dur\":1},"
    "{\"ph\":\"X\",\"name\":\"big \xf4\x90\x80\x80\",\"pid\":1,\"tid\":1,\"ts\":4,\"dur\":1},"
    "{\"ph\":\"X\",\"name\":\"cut \xe6\x97!\",\"pid\":1,\"tid\":1,\"ts\":5,\"dur\":1},"
    /* escapes: a lone low and a lone high surrogate, a high one before a non-surrogate, a pair */
    "{\"ph\":\"X\",\"name\":\"k \\udfff\",\"cat\":\"kernel\",\"pid\":0,\"tid\":7,\"ts\":6,\"dur\":1,"
    "\"args\":{\"device\":0,\"stream\":7}},"
    "{\"ph\":\"X\",\"name\":\"h \\ud800x\",\"pid\":1,\"tid\":1,\"ts\":7,\"dur\":1},"
    "{\"ph\":\"X\",\"name\":\"p \\uD800\\u0041\",\"pid\":1,\"tid\":1,\"ts\":8,\"dur\":1},"
    "{\"ph\":\"X\",\"name\":\"ok \\ud83d\\ude00 \xe6\x97\xb6\",\"pid\":1,\"tid\":1,\"ts\":9,\"dur\":1},"
    "{\"ph\":\"X\",\"name\":\"hh \\ud800\\ud800\\udc00\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":1},"
    /* metadata, a string pid, a counter */
    "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"args\":{\"name\":\"proc \xff\"}},"
    "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"thr \xe6\x97\xb6\"}},"
    "{\"ph\":\"X\",\"name\":\"s\",\"pid\":\"pid\xff\",\"tid\":1,\"ts\":11,\"dur\":1},"
    "{\"ph\":\"C\",\"name\":\"ctr\xff\",\"pid\":1,\"ts\":12,\"args\":{\"v\xfe\":1,\"w\":2}}"
    "],\"meta\xff\":\"v\xfe\",\"deviceProperties\":[{\"id\":0,\"name\":\"GPU \xff\",\"numSms\":132}]}";
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = load_text (json, -1, &error);
  const KsTrack *track;
  guint32 i, p;
  gboolean found = FALSE;
  guint n_counters = 0;

  g_assert_no_error (error);
  assert_model_utf8 (trace);

  i = find_slice (trace, "bad " FFFD " name", &track);
  g_assert_cmpstr (ks_trace_string (trace, track->category[i]), ==, "c" FFFD FFFD "at");
  g_assert_cmpstr (ks_trace_slice_args (trace, track, i, args_buf), ==, "{\"s\":\"a" FFFD "b\",\"k" FFFD "\":1,\"e\":\"\\ufffd\"}");
  find_slice (trace, "cesu " FFFD FFFD FFFD FFFD FFFD FFFD, &track);
  find_slice (trace, "big " FFFD FFFD FFFD FFFD, &track);
  find_slice (trace, "cut " FFFD "!", &track);
  i = find_slice (trace, "k " FFFD, &track);
  g_assert_cmpuint (track->kind, ==, KS_TRACK_STREAM);
  find_slice (trace, "h " FFFD "x", &track);
  find_slice (trace, "p " FFFD "A", &track);
  find_slice (trace, "ok \xf0\x9f\x98\x80 \xe6\x97\xb6", &track);
  find_slice (trace, "hh " FFFD "\xf0\x90\x80\x80", &track);

  p = ks_trace_find_process (trace, 1);
  g_assert_cmpuint (p, !=, KS_NO_INDEX);
  g_assert_cmpstr (ks_trace_string (trace, trace->processes[p].name), ==, "proc " FFFD);
  for (guint32 t = 0; t < trace->n_threads; t++)
    if (trace->threads[t].process == p && trace->threads[t].tid == 1)
      g_assert_cmpstr (ks_trace_string (trace, trace->threads[t].name), ==, "thr \xe6\x97\xb6");
  for (guint32 k = 0; k < trace->n_processes; k++)
    if (g_strcmp0 (ks_trace_string (trace, trace->processes[k].original), "pid" FFFD) == 0)
      found = TRUE;
  g_assert_true (found);
  for (guint32 c = 0; c < trace->n_counters; c++)
    {
      const char *name = ks_trace_string (trace, trace->counters[c].name);

      g_assert_true (g_str_equal (name, "ctr" FFFD " v" FFFD) || g_str_equal (name, "ctr" FFFD " w"));
      n_counters++;
    }
  g_assert_cmpuint (n_counters, ==, 2);
  g_assert_cmpstr (ks_trace_get_metadata (trace, "meta" FFFD), ==, "v" FFFD);
  g_assert_cmpuint (trace->n_gpus, ==, 1);
  g_assert_cmpstr (ks_trace_string (trace, trace->gpus[0].name), ==, "GPU " FFFD);

  /* name 1+1, cat 2, args 3, cesu 6, big 4, cut 1, escapes 1+1+1+1,
   * process name 1, pid 1, counter 1+1, metadata 1+1, GPU 1; not the
   * "cname" nothing keeps */
  g_assert_nonnull (strstr (warnings (trace),
                            "inline.json: 29 invalid UTF-8 sequences or unpaired surrogates were replaced with U+FFFD"));
}

/* Python's json.dump writes NaN, Infinity and -Infinity; files may start
 * with a UTF-8 byte order mark. In arguments they stay (as strings, so
 * that the argument text is JSON); as a time they make the event
 * invalid. Plain, mapped and gzip input alike. */
static void
test_nan_infinity_bom (void)
{
  g_autoptr(GString) args_buf = g_string_new (NULL);
  const char *json =
    "\xef\xbb\xbf{\"traceEvents\": [\n"
    "{\"ph\": \"X\", \"name\": \"a\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 2, "
    "\"args\": {\"loss\": NaN, \"hi\": Infinity, \"lo\": -Infinity, \"n\": [NaN, 1, -Infinity]}},\n"
    "{\"ph\": \"X\", \"name\": \"nan-ts\", \"pid\": 1, \"tid\": 1, \"ts\": NaN, \"dur\": 1},\n"
    "{\"ph\": \"X\", \"name\": \"inf-dur\", \"pid\": 1, \"tid\": 1, \"ts\": 3, \"dur\": Infinity},\n"
    "{\"ph\": \"i\", \"name\": \"neg-inf-ts\", \"pid\": 1, \"tid\": 1, \"ts\": -Infinity},\n"
    "{\"ph\": \"C\", \"name\": \"c\", \"pid\": 1, \"ts\": 4, \"args\": {\"v\": NaN, \"w\": 5}},\n"
    "{\"ph\": \"X\", \"name\": \"b\", \"pid\": 1, \"tid\": 1, \"ts\": 5, \"dur\": 1}\n"
    "], \"score\": NaN}\n";
  g_autofree char *path = write_temp ("nan.json", json, strlen (json));
  g_autofree char *gz_path = write_temp_gzip ("nan.json.gz", json, strlen (json));

  for (guint how = 0; how < 3; how++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(KsTrace) trace = how == 0 ? load_text (json, -1, &error)
                                          : load_path (how == 1 ? path : gz_path, &error);
      const KsTrack *track;

      g_assert_no_error (error);
      track = only_thread_track (trace);
      g_assert_cmpuint (track->n_slices, ==, 2);
      g_assert_cmpstr (ks_trace_string (trace, track->name_id[0]), ==, "a");
      g_assert_cmpstr (ks_trace_slice_args (trace, track, 0, args_buf), ==,
                       "{\"loss\":\"NaN\",\"hi\":\"Infinity\",\"lo\":\"-Infinity\",\"n\":[\"NaN\",1,\"-Infinity\"]}");
      g_assert_cmpstr (ks_trace_string (trace, track->name_id[1]), ==, "b");
      g_assert_cmpuint (trace->n_instants, ==, 0);
      g_assert_cmpuint (trace->n_counters, ==, 1);
      g_assert_cmpuint (trace->counters[0].n_samples, ==, 1);
      g_assert_cmpfloat (trace->counters[0].value[0], ==, 5.0);
      g_assert_cmpstr (ks_trace_get_metadata (trace, "score"), ==, "NaN");
      g_assert_nonnull (strstr (warnings (trace), "3 events without a valid timestamp or duration were skipped"));
    }
  remove_temp (path);
  remove_temp (gz_path);

  /* positions of later errors are still the file's */
  assert_load_fails ("\xef\xbb\xbf[{\"ph\":\"X\",\"ts\":1,\"args\":{\"v\":-Infinity}},\n{\"ph\" \"X\"}]", -1,
                     "invalid JSON at line 2, byte 55");
  /* words that are not these stay errors */
  assert_load_fails ("[{\"ph\":\"X\",\"ts\":1,\"args\":{\"v\":NaNa}}]", -1, "invalid JSON");
  assert_load_fails ("[{\"ph\":\"X\",\"ts\":1,\"args\":{\"v\":+Infinity}}]", -1, "invalid JSON");
  assert_load_fails ("[{\"ph\":\"X\",\"ts\":1,\"args\":{\"v\":Inf}}]", -1, "invalid JSON");
}

/* A number token far beyond any real one is refused, naming the file and
 * where it starts, wherever the read blocks cut it; one at the limit loads. */
static void
test_long_number (void)
{
  g_autoptr(GString) args_buf = g_string_new (NULL);
  static const gsize lengths[] = { 64 * 1024 * 1024, 3 * 1024 * 1024 + 5, 4097 };

  for (guint k = 0; k < G_N_ELEMENTS (lengths); k++)
    {
      g_autoptr(GString) json = g_string_new ("[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1},\n"
                                              "{\"ph\":\"X\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":2,\"dur\":1,"
                                              "\"args\":{\"x\":");
      g_autofree char *expect = g_strdup_printf ("a number longer than 4096 bytes at line 2, byte %" G_GSIZE_FORMAT,
                                                 json->len);

      for (gsize i = 0; i < lengths[k]; i++)
        g_string_append_c (json, '1' + i % 9);
      g_string_append (json, "}}]");
      assert_load_fails (json->str, json->len, expect);
    }

  /* read where something reads it (the timestamp), through a mapped file */
  {
    g_autoptr(GString) json = g_string_new ("[{\"ph\":\"X\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":");
    g_autofree char *path = NULL;
    g_autofree char *expect = g_strdup_printf ("a number longer than 4096 bytes at line 1, byte %" G_GSIZE_FORMAT,
                                               json->len);
    g_autoptr(GError) error = NULL;
    g_autoptr(KsTrace) trace = NULL;

    for (guint i = 0; i < 5000; i++)
      g_string_append_c (json, '7');
    g_string_append (json, "}]");
    path = write_temp ("long-ts.json", json->str, json->len);
    trace = load_path (path, &error);
    g_assert_null (trace);
    g_assert_true (g_str_has_prefix (error->message, path));
    g_assert_nonnull (strstr (error->message, expect));
    remove_temp (path);
  }

  /* at the limit: kept in the argument text */
  {
    g_autoptr(GString) json = g_string_new ("[{\"ph\":\"X\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,"
                                            "\"args\":{\"x\":-");
    g_autoptr(GError) error = NULL;
    g_autoptr(KsTrace) trace = NULL;
    const char *args;

    for (guint i = 0; i < 4095; i++)
      g_string_append_c (json, '3');
    g_string_append (json, "}}]");
    trace = load_text (json->str, json->len, &error);
    g_assert_no_error (error);
    args = ks_trace_slice_args (trace, only_thread_track (trace), 0, args_buf);
    g_assert_cmpuint (strlen (args), ==, strlen ("{\"x\":}") + 4096);
  }
}

/* A string past 16 MiB is cut there (never inside a character or an
 * escape), with one warning; what follows it loads, and positions after
 * it are still the file's. */
static void
test_long_string (void)
{
  static const struct { const char *unit; gsize expect_len; const char *expect_unit; } cases[] = {
    { "a", 16 * 1024 * 1024, "a" },
    { "\xe6\x97\xb6", 16 * 1024 * 1024 - 1, "\xe6\x97\xb6" },
    /* 2796202 whole escapes fit in 16 MiB */
    { "\\u00e9", 2796202 * 2, "\xc3\xa9" },
    { "\\\\", 8 * 1024 * 1024, "\\" },
  };

  for (guint k = 0; k < G_N_ELEMENTS (cases); k++)
    {
      gsize unit_len = strlen (cases[k].unit);
      g_autoptr(GString) json = g_string_new ("[{\"ph\":\"X\",\"name\":\"");
      g_autoptr(GError) error = NULL;
      g_autoptr(KsTrace) trace = NULL;
      const KsTrack *track;
      const char *name;

      while (json->len < 20 * 1000 * 1000)
        g_string_append_len (json, cases[k].unit, unit_len);
      g_string_append (json, "\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1},\n"
                             "{\"ph\":\"X\",\"name\":\"after\",\"pid\":1,\"tid\":1,\"ts\":2,\"dur\":1}]");
      trace = load_text (json->str, json->len, &error);
      g_assert_no_error (error);
      track = only_thread_track (trace);
      g_assert_cmpuint (track->n_slices, ==, 2);
      name = ks_trace_string (trace, track->name_id[0]);
      g_assert_cmpuint (strlen (name), ==, cases[k].expect_len);
      g_assert_true (g_utf8_validate (name, -1, NULL));
      g_assert_true (g_str_has_suffix (name, cases[k].expect_unit));
      g_assert_cmpstr (ks_trace_string (trace, track->name_id[1]), ==, "after");
      g_assert_nonnull (strstr (warnings (trace), "inline.json: 1 strings longer than 16 MiB were cut to their first 16 MiB"));
    }

  /* an error after a cut string */
  {
    g_autoptr(GString) json = g_string_new ("[{\"ph\":\"X\",\"name\":\"");
    g_autofree char *expect = NULL;

    for (guint i = 0; i < 17 * 1024 * 1024; i++)
      g_string_append_c (json, 'a' + i % 26);
    g_string_append (json, "\",\"ts\":1},\n{\"ph\" \"X\"}]");
    expect = g_strdup_printf ("invalid JSON at line 2, byte %" G_GSIZE_FORMAT, json->len - 2);
    assert_load_fails (json->str, json->len, expect);
  }
}

/* Every hostile token above, cut by the end of a read block at each of
 * its bytes in turn: the same model every time. */
static void
test_tokens_across_blocks (void)
{
  const char *hostile =
    "{\"ph\": \"X\", \"name\": \"n\\u00e9 \\ud83d\\ude00 \\udfff \\ud800\\\\u0041 \xe6\x97\xb6 \xff\xc0\xaf end\", "
    "\"cat\": \"c\\\\\\\\\\\"q\", \"pid\": 1, \"tid\": 1, \"ts\": 1.5, \"dur\": 2, "
    "\"args\": {\"v\": NaN, \"w\": [Infinity, -Infinity, true, false, null, -1.25e-3], "
    "\"s\": \"\\\\\\\\\\\\\\\\\\\"\xed\xa0\x80 x\", "
    "\"long\": 1234567890123456789012345678901234567890123456789012345678901234567890123456789012345}}, "
    "{\"ph\": \"C\", \"name\": \"ctr\", \"pid\": 1, \"ts\": 3, \"args\": {\"a\": NaN, \"b\": 7}}, "
    "{\"ph\": \"X\", \"name\": \"nan\", \"pid\": 1, \"tid\": 1, \"ts\": NaN, \"dur\": 1}, ";
  g_autofree char *expect = NULL;
  gsize hostile_len = strlen (hostile);
  const gsize head = 4;   /* the byte order mark and "[" */

  /* the first block ends from 100 bytes before the hostile events to
   * past them; white space fills it */
  for (gsize pad = READ_BLOCK - head - 100; pad <= READ_BLOCK - head + hostile_len; pad++)
    {
      g_autoptr(GString) json = g_string_new ("\xef\xbb\xbf[");
      g_autoptr(GError) error = NULL;
      g_autoptr(KsTrace) trace = NULL;
      g_autofree char *digest = NULL;
      g_autofree char *all = NULL;

      g_string_append_printf (json, "%*s%s", (int)pad, "", hostile);
      g_string_append (json, "{\"ph\": \"i\", \"name\": \"end\", \"pid\": 1, \"tid\": 1, \"ts\": 0}]");
      trace = load_text (json->str, json->len, &error);
      g_assert_no_error (error);
      assert_model_utf8 (trace);
      digest = slices_digest (trace);
      g_assert_cmpuint (trace->n_counters, ==, 1);
      g_assert_cmpuint (trace->counters[0].n_samples, ==, 1);
      all = g_strdup_printf ("%s\n%s\n%g", digest, warnings (trace), trace->counters[0].value[0]);
      if (expect == NULL)
        {
          g_test_message ("%s", all);
          expect = g_steal_pointer (&all);
        }
      else
        g_assert_cmpstr (all, ==, expect);
    }
  g_assert_true (g_str_has_prefix (expect, "1 slices "));
  g_assert_nonnull (strstr (expect, "inline.json: 8 invalid UTF-8 sequences"));
  g_assert_nonnull (strstr (expect, "1 events without a valid timestamp"));
}

/* The same files through the 16-byte white-space dropping (no AVX-512):
 * it notes NaN, long numbers and bytes above 0x7f on its own. */
static void
test_hostile_16_byte_path (void)
{
  if (g_test_subprocess ())
    {
      test_invalid_utf8 ();
      test_nan_infinity_bom ();
      test_long_number ();
      return;
    }

  if (!have_avx512 ())
    {
      g_test_skip ("this processor has no AVX-512 VBMI2: the other tests took the 16-byte path");
      return;
    }
  trap_without_avx512 ();
}

/* A damaged gzip block: the error names a compressed offset near it. */
static void
test_gzip_corrupt_offset (void)
{
  g_autoptr(GString) json = g_string_new ("[\n");
  g_autoptr(GArray) flushes = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autoptr(GByteArray) gz = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autofree char *path = NULL;
  const char *near;
  guint64 at, reported;
  guint n;

  for (n = 0; json->len < 6 * 1024 * 1024; n++)
    g_string_append_printf (json, "{\"ph\":\"X\",\"name\":\"op %u\",\"pid\":1,\"tid\":1,\"ts\":%u,\"dur\":1},\n",
                            (n * 2654435761u) % 100003, n * 3);
  g_string_append (json, "{\"ph\":\"i\",\"name\":\"end\",\"pid\":1,\"tid\":1,\"ts\":0}]");
  gz = gzip_with_flushes (json->str, json->len, 64 * 1024, flushes);
  g_assert_cmpuint (flushes->len, >, 20);
  /* a block header of type 3 (reserved) in the middle of the file */
  at = g_array_index (flushes, guint64, flushes->len / 2);
  g_assert_cmpuint (at, >, 100000);
  gz->data[at] = 0xff;
  path = write_temp ("flipped.json.gz", gz->data, gz->len);

  trace = load_path (path, &error);
  g_assert_null (trace);
  g_assert_nonnull (error);
  g_test_message ("%s (block at %" G_GUINT64_FORMAT ")", error->message, at);
  g_assert_true (g_str_has_prefix (error->message, path));
  near = strstr (error->message, "near compressed byte ");
  g_assert_nonnull (near);
  reported = g_ascii_strtoull (near + strlen ("near compressed byte "), NULL, 10);
  g_assert_cmpuint (reported + 16, >=, at);
  g_assert_cmpuint (reported, <=, at + 16);
  remove_temp (path);
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

/* Flows v2, in the shape of Perfetto's flow_events_json_v2: slices carry
 * "bind_id" with "flow_out" (a flow leaves here), "flow_in" (one arrives)
 * or both (a step). Arrivals take the flow from the last slice that sent
 * the id, so one sender fans out to several; the slice is the one with
 * the bind_id, not a child starting at its time. Events are in no time
 * order. */
static void
test_flows_v2 (void)
{
  const char *json =
    "{\"traceEvents\":["
    "{\"cat\":\"ipc\",\"pid\":15902,\"tid\":15903,\"ts\":3002,\"ph\":\"X\",\"name\":\"SenderA\",\"args\":{},"
    "\"dur\":10,\"bind_id\":\"0x402\",\"flow_out\":true},"
    "{\"cat\":\"ipc\",\"pid\":15903,\"tid\":15904,\"ts\":0,\"ph\":\"X\",\"name\":\"SenderB\",\"args\":{},"
    "\"dur\":10,\"bind_id\":\"0x403\",\"flow_out\":true,\"flow_in\":false},"
    "{\"cat\":\"ipc\",\"pid\":15875,\"tid\":15895,\"ts\":1001,\"ph\":\"X\",\"name\":\"Blergh\",\"args\":{},"
    "\"dur\":100,\"bind_id\":\"0x403\",\"flow_in\":true},"
    "{\"cat\":\"ipc\",\"pid\":15774,\"tid\":15794,\"ts\":3200,\"ph\":\"X\",\"name\":\"OtherSlice\",\"args\":{},"
    "\"dur\":500,\"bind_id\":\"0x402\",\"flow_in\":true,\"flow_out\":true},"
    "{\"cat\":\"ipc\",\"pid\":15874,\"tid\":15894,\"ts\":3331,\"ph\":\"X\",\"name\":\"SomeSlice\",\"args\":{},"
    "\"dur\":400,\"bind_id\":\"0x402\",\"flow_in\":true},"
    "{\"cat\":\"ipc\",\"pid\":15875,\"tid\":15895,\"ts\":3333,\"ph\":\"B\",\"name\":\"SomeOtherSlice\",\"args\":{},"
    "\"bind_id\":\"0x402\",\"flow_in\":true},"
    "{\"cat\":\"ipc\",\"pid\":15875,\"tid\":15895,\"ts\":3366,\"dur\":0,\"ph\":\"i\",\"name\":\"SomeOtherSliceInstant\",\"args\":{}},"
    "{\"cat\":\"ipc\",\"pid\":15875,\"tid\":15895,\"ts\":4330,\"ph\":\"E\",\"name\":\"SomeOtherSlice\",\"args\":{}},"
    /* an async range receives too */
    "{\"cat\":\"ipc\",\"pid\":15875,\"ts\":2000,\"ph\":\"b\",\"id\":\"0x1\",\"name\":\"AsyncRecv\",\"bind_id\":\"0x403\",\"flow_in\":true},"
    "{\"cat\":\"ipc\",\"pid\":15875,\"ts\":2100,\"ph\":\"e\",\"id\":\"0x1\",\"name\":\"AsyncRecv\"},"
    /* a chain by number, written backwards: c1 > c2 > c3 > c4 */
    "{\"cat\":\"ipc\",\"pid\":1,\"tid\":2,\"ts\":130,\"ph\":\"X\",\"name\":\"c4\",\"dur\":5,\"bind_id\":7,\"flow_in\":true},"
    "{\"cat\":\"ipc\",\"pid\":1,\"tid\":1,\"ts\":120,\"ph\":\"X\",\"name\":\"c3\",\"dur\":5,\"bind_id\":7,\"flow_in\":true,\"flow_out\":true},"
    "{\"cat\":\"ipc\",\"pid\":1,\"tid\":2,\"ts\":110,\"ph\":\"X\",\"name\":\"c2\",\"dur\":5,\"bind_id\":7,\"flow_out\":true,\"flow_in\":true},"
    "{\"cat\":\"ipc\",\"pid\":1,\"tid\":1,\"ts\":100,\"ph\":\"X\",\"name\":\"c1\",\"dur\":5,\"bind_id\":7,\"flow_out\":true},"
    /* the sender encloses a child that starts with it: the flow is the sender's */
    "{\"cat\":\"ipc\",\"pid\":1,\"tid\":1,\"ts\":200,\"ph\":\"X\",\"name\":\"outer\",\"dur\":50,\"bind_id\":\"9\",\"flow_out\":true},"
    "{\"cat\":\"ipc\",\"pid\":1,\"tid\":1,\"ts\":200,\"ph\":\"X\",\"name\":\"inner\",\"dur\":10},"
    "{\"cat\":\"ipc\",\"pid\":1,\"tid\":2,\"ts\":300,\"ph\":\"X\",\"name\":\"dst\",\"dur\":5,\"bind_id\":\"9\",\"flow_in\":true},"
    /* no direction: no flow; an arrival nothing sent: skipped, said so */
    "{\"cat\":\"ipc\",\"pid\":1,\"tid\":1,\"ts\":400,\"ph\":\"X\",\"name\":\"nodir\",\"dur\":5,\"bind_id\":\"9\"},"
    "{\"cat\":\"ipc\",\"pid\":1,\"tid\":2,\"ts\":410,\"ph\":\"X\",\"name\":\"orphan\",\"dur\":5,\"bind_id\":\"0x77\",\"flow_in\":true}"
    "]}";
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = load_text (json, -1, &error);
  g_autofree char *pairs = NULL;

  g_assert_no_error (error);
  pairs = flow_pairs (trace, "ipc");
  g_assert_cmpstr (pairs, ==,
                   "OtherSlice>SomeOtherSlice OtherSlice>SomeSlice SenderA>OtherSlice SenderB>AsyncRecv "
                   "SenderB>Blergh c1>c2 c2>c3 c3>c4 outer>dst");
  g_assert_nonnull (strstr (warnings (trace), "1 flow events without an id or a partner were skipped"));
}

/* The samples of the counter named @name, as "ts=value" (ts relative to
 * the trace's origin, in ns); NULL when there is no such counter. */
static char *
counter_samples (KsTrace    *trace,
                 const char *name)
{
  for (guint32 i = 0; i < trace->n_counters; i++)
    if (g_str_equal (ks_trace_string (trace, trace->counters[i].name), name))
      {
        const KsCounter *c = &trace->counters[i];
        GString *out = g_string_new (NULL);

        for (guint32 k = 0; k < c->n_samples; k++)
          g_string_append_printf (out, "%s%" G_GINT64_FORMAT "=%g", k ? " " : "", c->ts[k], c->value[k]);
        return g_string_free (out, FALSE);
      }
  return NULL;
}

/* Counter values written as strings, in the shape of Perfetto's
 * json_counter_args and json_metadata: what reads as a number is a
 * sample, the rest is skipped; a single series keeps its key
 * (counters_json_counters: "ctr cats"). */
static void
test_counter_strings (void)
{
  const char *json =
    "["
    "{\"ph\":\"C\",\"pid\":300,\"tid\":301,\"ts\":3000,\"name\":\"Edge\",\"cat\":\"counters_str\",\"args\":{"
    "\"leading_dot\":\".75\",\"trailing_dot\":\"246.\",\"leading_zero_float\":\"01.23\","
    "\"leading_zero_int_str\":\"050\",\"incomplete_exp\":\"1.5e\",\"exp_no_digit\":\"2e+\",\"just_dot\":\".\","
    "\"plus_val\":\"+10.5\",\"just_plus\":\"+\",\"just_minus\":\"-\",\"hex\":\"0x10\",\"word\":\"inf\"}},"
    "{\"pid\":\"1000\",\"name\":\"ctr\",\"ph\":\"C\",\"ts\":3000,\"args\":{\"cats\":0}},"
    "{\"pid\":\"1000\",\"name\":\"ctr\",\"ph\":\"C\",\"ts\":3010,\"args\":{\"cats\":10}},"
    "{\"pid\":\"1000\",\"name\":\"ctr\",\"ph\":\"C\",\"ts\":3020,\"args\":{\"cats\":\"0\"}},"
    "{\"ph\":\"C\",\"pid\":30,\"tid\":31,\"ts\":3000,\"name\":\"MyCounters\",\"id\":\"g1\",\"args\":{"
    "\"counter1_float\":100.5,\"counter2_int\":-50,\"counter3_str_num\":\"25.7\"}},"
    /* sort indices written as strings */
    "{\"ph\":\"X\",\"pid\":30,\"tid\":31,\"ts\":3000,\"dur\":1,\"name\":\"x\"},"
    "{\"ph\":\"M\",\"pid\":30,\"name\":\"process_sort_index\",\"args\":{\"sort_index\":\"-2\"}},"
    "{\"ph\":\"M\",\"pid\":30,\"tid\":31,\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":\"5\"}}"
    "]";
  static const struct { const char *name, *samples; } expect[] = {
    { "Edge leading_dot", "0=0.75" },
    { "Edge trailing_dot", "0=246" },
    { "Edge leading_zero_float", "0=1.23" },
    { "Edge leading_zero_int_str", "0=50" },
    { "Edge plus_val", "0=10.5" },
    { "ctr cats", "0=0 10000=10 20000=0" },
    { "MyCounters g1 counter1_float", "0=100.5" },
    { "MyCounters g1 counter2_int", "0=-50" },
    { "MyCounters g1 counter3_str_num", "0=25.7" },
  };
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = load_text (json, -1, &error);
  guint32 p;

  g_assert_no_error (error);
  g_assert_cmpuint (trace->n_counters, ==, G_N_ELEMENTS (expect));
  for (guint i = 0; i < G_N_ELEMENTS (expect); i++)
    {
      g_autofree char *samples = counter_samples (trace, expect[i].name);

      g_assert_cmpstr (samples, ==, expect[i].samples);
    }
  p = ks_trace_find_process (trace, 30);
  g_assert_cmpint (trace->processes[p].sort_index, ==, -2);
  g_assert_cmpuint (trace->n_threads, ==, 1);
  g_assert_cmpint (trace->threads[0].sort_index, ==, 5);
}

/* The number of lines of the trace's "warnings" metadata */
static guint
n_warnings (KsTrace *trace)
{
  g_auto(GStrv) lines = g_strsplit (warnings (trace), "\n", -1);
  guint n = 0;

  for (guint i = 0; lines[i] != NULL; i++)
    n += lines[i][0] != '\0';
  return n;
}

/* What Chrome and Perfetto accept though JSON does not: trailing commas
 * (json_trailing_comma, args_ordered) and raw control characters in
 * strings (json_pid_tid_zero). Read with one load warning; the args keep
 * valid JSON (the character escaped). */
static void
test_lenient_syntax (void)
{
  g_autoptr(GString) args_buf = g_string_new (NULL);
  const char *trailing =
    "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n"
    "{\"name\":\"Foo\",\"ph\":\"X\",\"tid\":0,\"ts\":3473608.458,\"dur\":295555.500},\n"
    "{\"name\":\"Bar\",\"ph\":\"X\",\"tid\":0,\"ts\":4890.000,\"dur\":3764289.708},\n"
    "]}";
  const char *in_args =
    "[\n"
    "  {\"name\":\"Event1\",\"cat\":\"C\",\"ph\":\"b\",\"ts\":40000,\"pid\":1,\"id\":1,\n"
    "   \"args\":{\"02.step2\":2,}},\n"
    "  {\"name\":\"Event2\",\"cat\":\"C\",\"ph\":\"b\",\"ts\":40000,\"pid\":2,\"id\":1,\n"
    "   \"args\":{\"01.step1\":1,\n \"02.step2\":2 , }}\n"
    "]";
  const char *control =
    "{\"traceEvents\":[{\"cat\":\"Reeq\",\"pid\":0,\"tid\":0,\"ts\":0,\"ph\":\"X\",\"dur\":1,"
    "\"name\":\"Routine\tControl\",\"args\":{\"raw\":\"ID: 760, cc \n\",\"bell\":\"\x07\"}}]}";
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = load_text (trailing, -1, &error);
  const KsTrack *track;
  KsTraceCounts c;

  g_assert_no_error (error);
  track = only_thread_track (trace);
  g_assert_cmpuint (track->n_slices, ==, 2);
  g_assert_cmpstr (ks_trace_string (trace, track->name_id[0]), ==, "Bar");
  g_assert_cmpint (track->start[0], ==, 0);
  g_assert_cmpint (track->end[0], ==, 3764289708);
  g_assert_cmpstr (ks_trace_string (trace, track->name_id[1]), ==, "Foo");
  g_assert_cmpint (track->start[1], ==, 3473608458 - 4890000);
  g_assert_cmpint (track->end[1] - track->start[1], ==, 295555500);
  g_assert_cmpuint (n_warnings (trace), ==, 1);
  g_assert_nonnull (strstr (warnings (trace), "1 trailing commas"));
  g_clear_object (&trace);

  trace = load_text (in_args, -1, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (n_warnings (trace), ==, 2);   /* and the two ranges left open */
  g_assert_nonnull (strstr (warnings (trace), "2 trailing commas"));
  for (guint32 t = 0; t < trace->n_tracks; t++)
    {
      const KsTrack *async = &trace->tracks[t];

      g_assert_cmpuint (async->n_slices, ==, 1);
      if (g_str_equal (ks_trace_string (trace, async->name_id[0]), "Event1"))
        g_assert_cmpstr (ks_trace_slice_args (trace, async, 0, args_buf), ==, "{\"02.step2\":2}");
      else
        g_assert_cmpstr (ks_trace_slice_args (trace, async, 0, args_buf), ==, "{\"01.step1\":1,\"02.step2\":2}");
    }
  g_clear_object (&trace);

  trace = load_text (control, -1, &error);
  g_assert_no_error (error);
  track = only_thread_track (trace);
  g_assert_cmpstr (ks_trace_string (trace, track->name_id[0]), ==, "Routine\tControl");
  g_assert_cmpstr (ks_trace_slice_args (trace, track, 0, args_buf), ==, "{\"raw\":\"ID: 760, cc \\n\",\"bell\":\"\\u0007\"}");
  g_assert_cmpuint (n_warnings (trace), ==, 1);
  g_assert_nonnull (strstr (warnings (trace), "3 control characters"));

  /* what is broken still is, where it is: line 3, after a trailing comma */
  assert_load_fails ("[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,},\n"
                     "{\"ph\":\"X\",\"name\":\"a\nb\",\"ts\":1},\n"
                     "{\"ph\":\"X\" \"ts\":1}]", -1, "invalid JSON at line 4, byte 76:");
  assert_load_fails ("[{\"ph\":\"X\",,\"ts\":1}]", -1, "invalid JSON at line 1, byte 12:");
  assert_load_fails ("[,]", -1, "invalid JSON at line 1, byte 2:");
  g_clear_object (&trace);

  /* a comma that ends a 1 MiB block of the reader, before NaN (read as a
   * string) at the start of the next */
  {
    const char *head = "[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,\"args\":{\"s\":\"";
    const char *tail = "\",\"v\":[1,";
    g_autoptr(GString) big = g_string_new (head);

    while (big->len < 1024 * 1024 - strlen (tail))
      g_string_append_c (big, 'x');
    g_string_append (big, tail);
    g_assert_cmpuint (big->len, ==, 1024 * 1024);
    g_string_append (big, "NaN,]}},]");
    trace = load_text (big->str, big->len, &error);
    g_assert_no_error (error);
    g_assert_nonnull (strstr (warnings (trace), ": not strict JSON, read as Chrome reads it: 2 trailing commas"));
    track = only_thread_track (trace);
    g_assert_true (g_str_has_suffix (ks_trace_slice_args (trace, track, 0, args_buf), "\"v\":[1,\"NaN\"]}"));
    g_clear_object (&trace);
  }

  /* from a pipe, which cannot be read again: refused, saying why */
  {
    int fds[2];
    g_autoptr(GInputStream) pipe_in = NULL;

    g_assert_cmpint (pipe (fds), ==, 0);
    g_assert_cmpint (write (fds[1], trailing, strlen (trailing)), ==, (gssize) strlen (trailing));
    close (fds[1]);
    pipe_in = g_unix_input_stream_new (fds[0], TRUE);
    g_assert_null (ks_json_reader_load_stream (pipe_in, "pipe.json", -1, NULL, NULL, &error));
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
    g_assert_cmpstr (error->message, ==, "pipe.json: invalid JSON: parse error: unallowed token at this point in JSON text");
    g_clear_error (&error);
  }

  /* in a folder: the other file's events are there once */
  {
    g_autofree char *dir = g_dir_make_tmp ("ks-folder-XXXXXX", NULL);
    g_autofree char *a = g_build_filename (dir, "a.json", NULL);
    g_autofree char *b = g_build_filename (dir, "b.json", NULL);
    g_autoptr(GFile) folder = g_file_new_for_path (dir);

    g_assert_true (g_file_set_contents (a, "[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1}]", -1, NULL));
    g_assert_true (g_file_set_contents (b, trailing, -1, NULL));
    trace = ks_trace_load (folder, NULL, NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (trace->n_threads, ==, 2);
    ks_trace_get_counts (trace, &c);
    g_assert_cmpuint (c.by_kind[KS_SLICE_GENERIC], ==, 3);
    g_assert_cmpuint (n_warnings (trace), ==, 1);
    g_assert_nonnull (strstr (warnings (trace), "b.json: not strict JSON"));
    g_unlink (a);
    g_unlink (b);
    g_rmdir (dir);
  }
  assert_load_fails ("[{\"ph\":\"X\",\"ts\":1,},,]", -1, "invalid JSON at line 1, byte 21:");
}

/* The top-level "metadata" object of DevTools traces, in the shape of
 * Perfetto's json_trace_metadata, and every other top-level key: kept
 * in the trace's metadata, nested keys joined with dots (array elements
 * by index), and so in a .kscope file. */
static void
test_top_level_metadata (void)
{
  const char *json =
    "{\"metadata\":{\"source\":\"DevTools\",\"startTime\":\"2023-09-21T21:04:15.706Z\",\"cpuThrottling\":1,"
    "\"networkThrottling\":\"No throttling\",\"hardwareConcurrency\":12,\"nested\":{\"a\":{\"b\":true}},"
    "\"list\":[1.5,\"two\",{\"three\":null},[4]]},"
    "\"traceEvents\":[{\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":10,\"name\":\"slice\",\"ph\":\"X\",\"cat\":\"cat\"}],"
    "\"distributedInfo\":{\"backend\":\"nccl\",\"rank\":0},\"flag\":false,\"empty\":{}}";
  static const char *expect[][2] = {
    { "metadata.source", "DevTools" },
    { "metadata.startTime", "2023-09-21T21:04:15.706Z" },
    { "metadata.cpuThrottling", "1" },
    { "metadata.networkThrottling", "No throttling" },
    { "metadata.hardwareConcurrency", "12" },
    { "metadata.nested.a.b", "true" },
    { "metadata.list.0", "1.5" },
    { "metadata.list.1", "two" },
    { "metadata.list.2.three", "null" },
    { "metadata.list.3.0", "4" },
    { "distributedInfo.backend", "nccl" },
    { "distributedInfo.rank", "0" },
    { "flag", "false" },
  };
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = load_text (json, -1, &error);
  g_autofree char *path = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(KsTrace) again = NULL;

  g_assert_no_error (error);
  for (guint i = 0; i < G_N_ELEMENTS (expect); i++)
    g_assert_cmpstr (ks_trace_get_metadata (trace, expect[i][0]), ==, expect[i][1]);
  g_assert_null (ks_trace_get_metadata (trace, "metadata"));
  g_assert_null (ks_trace_get_metadata (trace, "empty"));
  g_assert_cmpstr (warnings (trace), ==, "");

  path = write_temp ("meta.kscope", "", 0);
  file = g_file_new_for_path (path);
  g_assert_true (ks_kscope_write (trace, file, NULL, NULL, &error));
  g_assert_no_error (error);
  again = ks_trace_load (file, NULL, NULL, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < G_N_ELEMENTS (expect); i++)
    g_assert_cmpstr (ks_trace_get_metadata (again, expect[i][0]), ==, expect[i][1]);
  remove_temp (path);
  g_clear_object (&trace);

  /* a hostile file's values are bounded, and it says so */
  {
    g_autoptr(GString) big = g_string_new ("{\"traceEvents\":[{\"ph\":\"X\",\"ts\":0,\"name\":\"a\"}],\"m\":{");

    for (guint i = 0; i < 4097; i++)
      g_string_append_printf (big, "\"k%u\":%u,", i, i);
    g_string_append (big, "\"");
    for (guint i = 0; i < 300; i++)
      g_string_append_c (big, 'x');
    g_string_append (big, "\":1}}");
    trace = load_text (big->str, big->len, &error);
    g_assert_no_error (error);
    g_assert_cmpstr (ks_trace_get_metadata (trace, "m.k4095"), ==, "4095");
    g_assert_null (ks_trace_get_metadata (trace, "m.k4096"));
    g_assert_nonnull (strstr (warnings (trace), ": 2 top-level values past the first 4096"));
  }
}

/* The slice of @track named @name, or KS_NO_INDEX */
static guint32
slice_named (KsTrace       *trace,
             const KsTrack *track,
             const char    *name)
{
  for (guint32 i = 0; i < track->n_slices; i++)
    if (g_str_equal (ks_trace_string (trace, track->name_id[i]), name))
      return i;
  return KS_NO_INDEX;
}

/* Threads, pids and nesting as Perfetto reads them: an event without a
 * tid is on the thread tid = pid (x_event_order, json_metadata); slices
 * of no duration at one time stack, one on the other, and under a longer
 * slice starting then, but not under one ending then. */
static void
test_perfetto_threads (void)
{
  const char *json =
    "["
    "{\"name\":\"Child\",\"ph\":\"X\",\"ts\":1,\"dur\":5,\"pid\":1},"
    "{\"name\":\"Parent\",\"ph\":\"X\",\"ts\":1,\"dur\":10,\"pid\":1,\"tid\":1},"
    "{\"name\":\"PidOnly\",\"ph\":\"X\",\"ts\":2,\"dur\":1,\"pid\":33},"
    "{\"name\":\"Nothing\",\"ph\":\"X\",\"ts\":3,\"dur\":1},"
    "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":33,\"args\":{\"name\":\"main of 33\"}},"
    /* at 20: two instants stack; at 30 one under a slice that starts
     * there; at 41 one after a slice that ends there */
    "{\"name\":\"i1\",\"ph\":\"X\",\"ts\":20,\"dur\":0,\"pid\":1,\"tid\":1},"
    "{\"name\":\"i2\",\"ph\":\"X\",\"ts\":20,\"pid\":1,\"tid\":1},"
    "{\"name\":\"i3\",\"ph\":\"X\",\"ts\":30,\"dur\":0,\"pid\":1,\"tid\":1},"
    "{\"name\":\"long\",\"ph\":\"X\",\"ts\":30,\"dur\":11,\"pid\":1,\"tid\":1},"
    "{\"name\":\"i4\",\"ph\":\"X\",\"ts\":41,\"dur\":0,\"pid\":1,\"tid\":1},"
    "{}"
    "]";
  static const struct { const char *name; guint depth; } depths[] = {
    { "Parent", 0 }, { "Child", 1 }, { "i1", 0 }, { "i2", 1 }, { "long", 0 }, { "i3", 1 }, { "i4", 0 },
  };
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = load_text (json, -1, &error);
  const KsTrack *track = NULL;
  guint32 p33;

  g_assert_no_error (error);
  /* (1, 1), (33, 33), (0, 0) */
  g_assert_cmpuint (trace->n_threads, ==, 3);
  for (guint32 i = 0; i < trace->n_threads; i++)
    {
      const KsThread *t = &trace->threads[i];

      g_assert_cmpint (t->tid, ==, trace->processes[t->process].pid);
      if (t->tid == 1)
        track = &trace->tracks[t->track];
      if (t->tid == 33)
        g_assert_cmpstr (ks_trace_string (trace, t->name), ==, "main of 33");
    }
  p33 = ks_trace_find_process (trace, 33);
  g_assert_cmpuint (p33, !=, KS_NO_INDEX);
  g_assert_nonnull (track);
  g_assert_cmpuint (track->n_slices, ==, G_N_ELEMENTS (depths));
  for (guint i = 0; i < G_N_ELEMENTS (depths); i++)
    {
      guint32 k = slice_named (trace, track, depths[i].name);

      g_assert_cmpuint (k, !=, KS_NO_INDEX);
      g_assert_cmpuint (track->depth[k], ==, depths[i].depth);
    }
  /* the trailing {} is no problem */
  g_assert_cmpstr (warnings (trace), ==, "");
}

/* Complete events that overlap the slice they start in only partly (Perfetto's
 * overlapping_complete_event): kept, drawn beside it at its depth, and said
 * once, with the names. An empty object that is not the last one is still
 * said. */
static void
test_partial_overlap (void)
{
  const char *json =
    "{\"traceEvents\":["
    "{\"ph\":\"X\",\"ts\":100,\"dur\":100,\"pid\":1,\"tid\":1,\"name\":\"outer\"},"
    "{\"ph\":\"X\",\"ts\":150,\"dur\":100,\"pid\":1,\"tid\":1,\"name\":\"inner\"},"
    "{},"
    "{\"ph\":\"X\",\"ts\":300,\"dur\":100,\"pid\":1,\"tid\":2,\"name\":\"a\"},"
    "{\"ph\":\"X\",\"ts\":350,\"dur\":100,\"pid\":1,\"tid\":2,\"name\":\"b\"}"
    "]}";
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = load_text (json, -1, &error);
  KsTraceCounts c;

  g_assert_no_error (error);
  ks_trace_get_counts (trace, &c);
  g_assert_cmpuint (c.by_kind[KS_SLICE_GENERIC], ==, 4);
  g_assert_cmpuint (n_warnings (trace), ==, 2);
  g_assert_nonnull (strstr (warnings (trace), "1 objects without a phase"));
  g_assert_nonnull (strstr (warnings (trace),
                            "2 slices overlap the slice they start in only partly (the first: "
                            "“inner” at 50 µs, in “outer”); each is drawn beside it, at its depth"));
  for (guint32 i = 0; i < trace->n_threads; i++)
    {
      const KsTrack *track = &trace->tracks[trace->threads[i].track];

      g_assert_cmpuint (track->n_slices, ==, 2);
      g_assert_cmpuint (track->max_depth, ==, 1);
      g_assert_cmpuint (track->depth[0], ==, 0);
      g_assert_cmpuint (track->depth[1], ==, 0);
    }
}

/* A name the overlap message quotes is cut to 80 characters: a file can
 * name a slice with megabytes. */
static void
test_partial_overlap_long_name (void)
{
  g_autofree char *outer = g_strnfill (100000, 'o');
  g_autofree char *i99 = g_strnfill (99, 'i');
  g_autofree char *o79 = g_strnfill (79, 'o');
  g_autofree char *i78 = g_strnfill (78, 'i');
  g_autofree char *inner = g_strconcat ("é", i99, NULL);
  g_autofree char *json = g_strdup_printf ("[{\"ph\":\"X\",\"ts\":100,\"dur\":100,\"pid\":1,\"tid\":1,\"name\":\"%s\"},"
                                           "{\"ph\":\"X\",\"ts\":150,\"dur\":100,\"pid\":1,\"tid\":1,\"name\":\"%s\"}]",
                                           outer, inner);
  g_autofree char *outer_80 = g_strconcat ("“", o79, "…”", NULL);
  g_autofree char *inner_80 = g_strconcat ("“é", i78, "…”", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = load_text (json, -1, &error);

  g_assert_no_error (error);
  g_assert_cmpuint (n_warnings (trace), ==, 1);
  g_assert_nonnull (strstr (warnings (trace), outer_80));
  g_assert_nonnull (strstr (warnings (trace), inner_80));
  g_assert_cmpuint (strlen (warnings (trace)), <, 400);
}

/* Async ranges pair by category and id across processes when the id is
 * global ("id", "id2": {"global"}), within the process for "id2":
 * {"local"} (Perfetto's json_id2_*): a range that begins in one process
 * and ends in another is one slice, on the row of the process it began
 * in. */
static void
test_async_scope (void)
{
  const char *json =
    "["
    "{\"name\":\"write\",\"ph\":\"b\",\"cat\":\"io\",\"pid\":2,\"tid\":2,\"ts\":10,\"id2\":{\"global\":1}},"
    "{\"name\":\"write\",\"ph\":\"e\",\"cat\":\"io\",\"pid\":3,\"tid\":3,\"ts\":20,\"id2\":{\"global\":1}},"
    "{\"name\":\"req\",\"ph\":\"b\",\"cat\":\"net\",\"pid\":2,\"ts\":30,\"id\":\"0x5\"},"
    "{\"name\":\"mark\",\"ph\":\"n\",\"cat\":\"net\",\"pid\":4,\"ts\":35,\"id\":\"0x5\"},"
    "{\"name\":\"req\",\"ph\":\"e\",\"cat\":\"net\",\"pid\":3,\"ts\":40,\"id\":\"0x5\"},"
    /* the same id in another category: not the same range */
    "{\"name\":\"other\",\"ph\":\"b\",\"cat\":\"disk\",\"pid\":2,\"ts\":50,\"id\":\"0x5\"},"
    "{\"name\":\"other\",\"ph\":\"e\",\"cat\":\"disk\",\"pid\":2,\"ts\":55,\"id\":\"0x5\"},"
    /* local ids: two ranges, one per process, each closed by its own */
    "{\"name\":\"loc\",\"ph\":\"b\",\"cat\":\"c\",\"pid\":2,\"ts\":60,\"id2\":{\"local\":\"0x7\"}},"
    "{\"name\":\"loc\",\"ph\":\"b\",\"cat\":\"c\",\"pid\":3,\"ts\":61,\"id2\":{\"local\":\"0x7\"}},"
    "{\"name\":\"loc\",\"ph\":\"e\",\"cat\":\"c\",\"pid\":3,\"ts\":70,\"id2\":{\"local\":\"0x7\"}},"
    "{\"name\":\"loc\",\"ph\":\"e\",\"cat\":\"c\",\"pid\":2,\"ts\":80,\"id2\":{\"local\":\"0x7\"}}"
    "]";
  /* name, pid of its row, start and end (ns from the trace's start at 10 us) */
  static const struct { const char *name; gint64 pid, start, end; } expect[] = {
    { "write", 2, 0, 10000 }, { "req", 2, 20000, 30000 }, { "other", 2, 40000, 45000 },
    { "loc", 2, 50000, 70000 }, { "loc", 3, 51000, 60000 },
  };
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = load_text (json, -1, &error);
  guint found = 0;

  g_assert_no_error (error);
  g_assert_cmpstr (warnings (trace), ==, "");
  for (guint32 t = 0; t < trace->n_tracks; t++)
    {
      const KsTrack *track = &trace->tracks[t];

      if (track->kind != KS_TRACK_ASYNC)
        continue;
      for (guint32 i = 0; i < track->n_slices; i++)
        for (guint k = 0; k < G_N_ELEMENTS (expect); k++)
          if (g_str_equal (ks_trace_string (trace, track->name_id[i]), expect[k].name) &&
              trace->processes[track->process].pid == expect[k].pid &&
              track->start[i] == expect[k].start)
            {
              g_assert_cmpint (track->end[i], ==, expect[k].end);
              found++;
            }
    }
  g_assert_cmpuint (found, ==, G_N_ELEMENTS (expect));
  /* the mark of "req" is on its row, in process 2 */
  g_assert_cmpuint (trace->n_instants, ==, 1);
  g_assert_cmpint (trace->processes[trace->instants[0].process].pid, ==, 2);
}

/* Thread time (CPU time): "tts" and "tdur" of complete events, numbers
 * or strings (string_tts_and_tdur), a begin's and an end's "tts" for a
 * B/E pair (flow_events_json_v2's SomeOtherSlice), a start without a
 * duration (json_extreme_vals); kept per slice and in a .kscope file. */
static void
test_thread_time (void)
{
  const char *json =
    "["
    "{\"ph\":\"X\",\"pid\":10,\"tid\":15,\"ts\":\"400\",\"dur\":\"100\",\"tts\":\"390.5\",\"tdur\":\"80.5\",\"name\":\"Strings\"},"
    "{\"ph\":\"X\",\"pid\":10,\"tid\":15,\"ts\":0,\"dur\":10,\"tts\":1,\"tdur\":5,\"name\":\"SenderB\"},"
    "{\"ph\":\"X\",\"pid\":10,\"tid\":15,\"ts\":1001,\"dur\":100,\"name\":\"Blergh\"},"
    "{\"ph\":\"B\",\"pid\":10,\"tid\":15,\"ts\":3333,\"name\":\"SomeOtherSlice\",\"tts\":3335},"
    "{\"ph\":\"E\",\"pid\":10,\"tid\":15,\"ts\":4330,\"tts\":4331},"
    "{\"ph\":\"X\",\"pid\":10,\"tid\":15,\"ts\":5000,\"dur\":50,\"name\":\"NoTdur\",\"tts\":1290},"
    "{\"ph\":\"X\",\"pid\":10,\"tid\":15,\"ts\":6000,\"dur\":50,\"name\":\"BadTts\",\"tts\":\"soon\"},"
    /* the same span as its parent: the outermost has it */
    "{\"ph\":\"X\",\"pid\":10,\"tid\":15,\"ts\":7000,\"dur\":50,\"name\":\"Outer\",\"tts\":7,\"tdur\":3},"
    "{\"ph\":\"X\",\"pid\":10,\"tid\":15,\"ts\":7000,\"dur\":50,\"name\":\"Inner\"}"
    "]";
  /* name, thread start (ns), thread duration (ns); G_MININT64: none */
  static const struct { const char *name; gint64 start, duration; } expect[] = {
    { "Strings", 390500, 80500 }, { "SenderB", 1000, 5000 }, { "Blergh", G_MININT64, 0 },
    { "SomeOtherSlice", 3335000, 996000 }, { "NoTdur", 1290000, -1 }, { "BadTts", G_MININT64, 0 },
    { "Outer", 7000, 3000 }, { "Inner", G_MININT64, 0 },
  };
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = load_text (json, -1, &error);
  g_autoptr(KsTrace) again = NULL;
  g_autofree char *path = write_temp ("tt.kscope", "", 0);
  g_autoptr(GFile) file = g_file_new_for_path (path);

  g_assert_no_error (error);
  g_assert_true (ks_kscope_write (trace, file, NULL, NULL, &error));
  again = ks_trace_load (file, NULL, NULL, &error);
  g_assert_no_error (error);
  remove_temp (path);

  for (guint pass = 0; pass < 2; pass++)
    {
      KsTrace *t = pass == 0 ? trace : again;
      const KsTrack *track = only_thread_track (t);

      g_assert_cmpuint (track->n_thread_times, ==, 5);
      for (guint i = 0; i < G_N_ELEMENTS (expect); i++)
        {
          guint32 k = slice_named (t, track, expect[i].name);
          gint64 start = 0, duration = 0;

          g_assert_cmpuint (k, !=, KS_NO_INDEX);
          if (expect[i].start == G_MININT64)
            {
              g_assert_false (ks_track_get_thread_time (track, k, &start, &duration));
              continue;
            }
          g_assert_true (ks_track_get_thread_time (track, k, &start, &duration));
          g_assert_cmpint (start, ==, expect[i].start);
          g_assert_cmpint (duration, ==, expect[i].duration);
        }
    }
}

/* A long string full of raw control characters is repaired in one
 * piece: 200,000 of them in a 400 kB name load at once (they were fed to
 * yajl a piece per character, which it lexes from the token's start each
 * time: minutes). As a file and as a stream, on one thread and on all. */
static void
test_lenient_long_string (void)
{
  g_autoptr(GString) json = g_string_new ("[{\"ph\":\"X\",\"name\":\"");
  g_autoptr(GString) want = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;

  for (guint i = 0; i < 200000; i++)
    {
      g_string_append (json, "a\x01");
      g_string_append (want, "a\x01");
    }
  g_string_append (json, "\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1},]");
  path = write_temp ("long-control.json", json->str, json->len);

  for (guint pass = 0; pass < 2; pass++)
    {
      g_autoptr(KsTrace) trace = pass == 0 ? load_text (json->str, json->len, &error) : load_path (path, &error);
      const KsTrack *track;

      g_assert_no_error (error);
      track = only_thread_track (trace);
      g_assert_cmpstr (ks_trace_string (trace, track->name_id[0]), ==, want->str);
      g_assert_cmpuint (n_warnings (trace), ==, 1);
      g_assert_nonnull (strstr (warnings (trace), "1 trailing comma"));
      g_assert_nonnull (strstr (warnings (trace), "200000 control characters"));
    }
  remove_temp (path);
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
  g_test_add_func ("/json/bad/empty", test_bad_empty);
  g_test_add_func ("/json/bad/not-trace", test_bad_not_trace);
  g_test_add_func ("/json/bad/syntax", test_bad_syntax);
  g_test_add_func ("/json/bad/syntax-gzip", test_bad_syntax_gzip);
  g_test_add_func ("/json/bad/syntax-far", test_bad_syntax_far);
  g_test_add_func ("/json/bad/deep-nesting", test_bad_deep_nesting);
  g_test_add_func ("/json/deep-unused-arg", test_deep_unused_arg);
  g_test_add_func ("/json/bad/words-apart", test_bad_words_apart);
  g_test_add_func ("/json/flow-ids", test_flow_ids);
  g_test_add_func ("/json/bad/types-and-numbers", test_bad_types_and_numbers);
  g_test_add_func ("/json/negative-ts", test_negative_ts);
  g_test_add_func ("/json/bad/truncated-json", test_truncated_json);
  g_test_add_func ("/json/bad/truncated-gzip", test_truncated_gzip);
  g_test_add_func ("/json/bad/files", test_bad_files);
  g_test_add_func ("/json/folder", test_folder);
  g_test_add_func ("/json/folder-same-pid", test_folder_same_pid);
  g_test_add_func ("/json/detect", test_detect);
  g_test_add_func ("/json/async", test_async);
  g_test_add_func ("/json/cancel-midway", test_cancel_midway);
  g_test_add_func ("/json/corpus", test_corpus);
  g_test_add_func ("/json/corpus-counts", test_corpus_counts);
  g_test_add_func ("/json/bad/invalid-utf8", test_invalid_utf8);
  g_test_add_func ("/json/nan-infinity-bom", test_nan_infinity_bom);
  g_test_add_func ("/json/bad/long-number", test_long_number);
  g_test_add_func ("/json/bad/long-string", test_long_string);
  g_test_add_func ("/json/bad/tokens-across-blocks", test_tokens_across_blocks);
  g_test_add_func ("/json/bad/hostile-16-byte-path", test_hostile_16_byte_path);
  g_test_add_func ("/json/bad/gzip-corrupt-offset", test_gzip_corrupt_offset);
  g_test_add_func ("/json/many-device-properties", test_many_device_properties);
  g_test_add_func ("/json/perfetto/flows-v2", test_flows_v2);
  g_test_add_func ("/json/perfetto/counter-strings", test_counter_strings);
  g_test_add_func ("/json/perfetto/lenient-syntax", test_lenient_syntax);
  g_test_add_func ("/json/perfetto/lenient-long-string", test_lenient_long_string);
  g_test_add_func ("/json/perfetto/top-level-metadata", test_top_level_metadata);
  g_test_add_func ("/json/perfetto/threads", test_perfetto_threads);
  g_test_add_func ("/json/perfetto/partial-overlap", test_partial_overlap);
  g_test_add_func ("/json/perfetto/partial-overlap-long-name", test_partial_overlap_long_name);
  g_test_add_func ("/json/perfetto/async-scope", test_async_scope);
  g_test_add_func ("/json/perfetto/thread-time", test_thread_time);
  return g_test_run ();
}
