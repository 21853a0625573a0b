/* test-finish-parallel.c: finishing a trace on every core
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>
#include <glib/gstdio.h>

#include "ks-trace-loader.h"

#include "test-dump.h"

static char *tmp_dir;

#define N_LAUNCHES 140000   /* three ranges of a thread's slices */

/* What the generator below puts in a trace, counted as it writes it. */
typedef struct
{
  guint n_flows;      /* launch flows to expect */
  guint n_memory;     /* memory events */
} Expect;

/* The GPU activities of launch @c: none for a call that launches
 * nothing, three (one a stream) for a graph, else one on stream
 * 7 + 6 * (c % 3). */
static guint
activities_of (guint c)
{
  if (c % 7 == 3)
    return 0;
  return c % 5000 == 0 ? 3 : 1;
}

/* A Kineto trace of N_LAUNCHES CUDA runtime calls on one thread, each
 * with its own correlation id, and their kernels on three streams, each
 * stream's in time order, so that the GPU side comes in three runs to
 * merge: calls that launch nothing, graph launches with a kernel on
 * every stream, every thousandth id called a second time later (which
 * does not link again), and allocator events out of time order. */
static GString *
launch_trace (Expect *expect)
{
  GString *s = g_string_new ("{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0, \"name\": \"G\"}],\n"
                             "\"traceEvents\": [\n");

  memset (expect, 0, sizeof *expect);
  for (guint c = 1; c <= N_LAUNCHES; c++)
    {
      guint n = activities_of (c);

      g_string_append_printf (s, "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"%s\", \"pid\": 455, "
                              "\"tid\": 455, \"ts\": %u, \"dur\": 5, \"args\": {\"correlation\": %u}},\n",
                              n > 0 ? "cudaLaunchKernel" : "cudaStreamIsCapturing", 10 * c, c);
      for (guint k = 0; k < n; k++)
        g_string_append_printf (s, "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k%u\", \"pid\": 0, "
                                "\"tid\": %u, \"ts\": %u, \"dur\": 3, \"args\": {\"device\": 0, \"stream\": %u, "
                                "\"correlation\": %u}},\n",
                                c % 11, 7 + 6 * ((c + k) % 3), 10 * c + 2, 7 + 6 * ((c + k) % 3), c);
      expect->n_flows += n;
      if (c % 25 == 0)
        {
          /* every other allocation logged late, before the one before it */
          g_string_append_printf (s, "{\"ph\": \"i\", \"s\": \"t\", \"name\": \"[memory]\", \"pid\": 455, "
                                  "\"tid\": 455, \"ts\": %u, \"args\": {\"Device Type\": 1, \"Device Id\": 0, "
                                  "\"Addr\": %u, \"Bytes\": 512, \"Total Allocated\": %u, "
                                  "\"Total Reserved\": 4096}},\n", c % 50 == 0 ? 10 * c - 400 : 10 * c, c, c);
          expect->n_memory++;
        }
    }
  for (guint c = 1000; c <= N_LAUNCHES; c += 1000)
    g_string_append_printf (s, "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", "
                            "\"pid\": 455, \"tid\": 455, \"ts\": %u, \"dur\": 5, \"args\": {\"correlation\": %u}},\n",
                            10 * (N_LAUNCHES + c), c);
  g_string_append (s, "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 455, \"args\": {\"name\": \"python\"}}\n]}\n");
  return s;
}

static guint32
slice_correlation (const KsTrace *trace,
                   guint32        track,
                   guint32        slice)
{
  g_assert_cmpuint (track, <, trace->n_tracks);
  g_assert_cmpuint (slice, <, trace->tracks[track].n_slices);
  return trace->tracks[track].correlation[slice];
}

/* Every launch flow joins a CPU call to a GPU activity of its
 * correlation id, the first call of an id that has one, and they come
 * in the order of the calls; the memory events by time. */
static void
check_trace (const KsTrace *trace,
             const Expect  *expect)
{
  guint32 last_from = 0;
  guint n_launch = 0;

  g_assert_cmpuint (trace->n_flows, ==, expect->n_flows);
  for (guint32 i = 0; i < trace->n_flows; i++)
    {
      const KsFlow *f = &trace->flows[i];
      guint32 c = slice_correlation (trace, f->from_track, f->from_slice);

      g_assert_cmpint (f->kind, ==, KS_FLOW_LAUNCH);
      g_assert_cmpint (trace->tracks[f->from_track].kind, ==, KS_TRACK_THREAD);
      g_assert_cmpint (trace->tracks[f->to_track].kind, ==, KS_TRACK_STREAM);
      g_assert_cmpuint (c, ==, slice_correlation (trace, f->to_track, f->to_slice));
      /* the first call of the id: the one at 10 c */
      g_assert_cmpint (trace->tracks[f->from_track].start[f->from_slice], ==,
                       trace->tracks[f->from_track].start[0] + 10 * (gint64) (c - 1) * 1000);
      g_assert_cmpuint (f->from_slice, >=, last_from);
      last_from = f->from_slice;
      n_launch++;
    }
  g_assert_cmpuint (n_launch, ==, expect->n_flows);

  g_assert_cmpuint (trace->n_memory_events, ==, expect->n_memory);
  for (guint32 i = 1; i < trace->n_memory_events; i++)
    g_assert_cmpint (trace->memory_events[i - 1].ts, <=, trace->memory_events[i].ts);
}

/* Launch flows linked and memory events sorted on one thread, three and
 * eight: the model of every one checked against what the generator
 * wrote, and the same .kscope byte for byte. */
static void
test_launches (void)
{
  Expect expect;
  g_autoptr(GString) s = launch_trace (&expect);
  g_autofree char *path = g_build_filename (tmp_dir, "launches.json", NULL);
  g_autoptr(GBytes) serial = NULL;
  static const char *const threads[] = { "1", "3", "8" };

  g_assert_true (g_file_set_contents (path, s->str, s->len, NULL));
  /* the ids that launch: all but a seventh, three kernels for a graph */
  g_assert_cmpuint (expect.n_flows, ==, 120000 + 2 * 24);
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(KsTrace) trace = test_dump_load (path, threads[i], "KINESCOPE_JSON_CHUNK_BYTES", NULL, &error);
      g_autoptr(GBytes) dump = NULL;

      g_assert_no_error (error);
      check_trace (trace, &expect);
      dump = test_dump_bytes (trace, NULL, tmp_dir);
      if (serial == NULL)
        serial = g_bytes_ref (dump);
      else
        test_dump_assert_same (path, threads[i], serial, dump);
    }
  g_unlink (path);
}

int
main (int   argc,
      char *argv[])
{
  int ret;

  g_test_init (&argc, &argv, NULL);
  tmp_dir = g_dir_make_tmp ("ks-finish-parallel-XXXXXX", NULL);

  g_test_add_func ("/finish-parallel/launches", test_launches);

  ret = g_test_run ();
  g_rmdir (tmp_dir);
  return ret;
}
