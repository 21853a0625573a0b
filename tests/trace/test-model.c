/* test-model.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "ks-trace-builder.h"

/* Slices on one thread, times in absolute ns starting at 1000:
 *   A [0,100)  B [10,50)  C [20,30)  D [60,90)  E [100,120)
 * given out of order so that finish() has to sort them. */
static KsTrace *
build_nested (guint32 *track_out)
{
  g_autoptr(GError) error = NULL;
  KsTraceBuilder *b = ks_trace_builder_new (KS_FORMAT_CHROME_JSON);
  guint32 p = ks_trace_builder_get_process (b, 42);
  guint32 t = ks_trace_builder_get_thread (b, p, 43);
  guint32 track = ks_trace_builder_get_thread_track (b, t);
  const struct { const char *name; gint64 s, e; } slices[] = {
    { "D", 60, 90 }, { "A", 0, 100 }, { "C", 20, 30 }, { "E", 100, 120 }, { "B", 10, 50 },
  };
  KsTrace *trace;

  for (guint i = 0; i < G_N_ELEMENTS (slices); i++)
    ks_trace_builder_add_slice (b, track, 1000 + slices[i].s, 1000 + slices[i].e, KS_SLICE_GENERIC,
                                ks_trace_builder_intern (b, slices[i].name), 0, 0, 0, 0, NULL);
  trace = ks_trace_builder_finish (b, NULL, &error);
  g_assert_no_error (error);
  *track_out = track;
  return trace;
}

static guint32
find (KsTrace       *trace,
      const KsTrack *track,
      const char    *name)
{
  guint32 id = ks_trace_lookup_string (trace, name);

  for (guint32 i = 0; i < track->n_slices; i++)
    if (track->name_id[i] == id)
      return i;
  g_assert_not_reached ();
}

static void
test_model_depths (void)
{
  guint32 t;
  g_autoptr(KsTrace) trace = build_nested (&t);
  const KsTrack *track = &trace->tracks[t];

  g_assert_cmpuint (track->n_slices, ==, 5);
  g_assert_cmpuint (track->max_depth, ==, 3);
  g_assert_cmpint (trace->origin_ns, ==, 1000);
  g_assert_cmpint (trace->duration_ns, ==, 120);

  /* sorted by start, parents first */
  for (guint32 i = 1; i < track->n_slices; i++)
    g_assert_cmpint (track->start[i - 1], <=, track->start[i]);

  g_assert_cmpuint (track->depth[find (trace, track, "A")], ==, 0);
  g_assert_cmpuint (track->depth[find (trace, track, "B")], ==, 1);
  g_assert_cmpuint (track->depth[find (trace, track, "C")], ==, 2);
  g_assert_cmpuint (track->depth[find (trace, track, "D")], ==, 1);
  g_assert_cmpuint (track->depth[find (trace, track, "E")], ==, 0);
  g_assert_cmpint (track->start[find (trace, track, "E")], ==, 100);

  g_assert_cmpuint (track->n_by_depth[0], ==, 2);
  g_assert_cmpuint (track->n_by_depth[1], ==, 2);
  g_assert_cmpuint (track->n_by_depth[2], ==, 1);
}

static gboolean
collect (const KsTrack *track,
         guint32        slice,
         gpointer       user_data)
{
  g_ptr_array_add (user_data, GUINT_TO_POINTER (slice));
  return TRUE;
}

static void
test_model_ranges (void)
{
  guint32 t;
  g_autoptr(KsTrace) trace = build_nested (&t);
  const KsTrack *track = &trace->tracks[t];
  g_autoptr(GPtrArray) hits = g_ptr_array_new ();

  /* [40, 65) touches A, B and D but not C (ends at 30) nor E */
  ks_track_foreach_in_range (track, 40, 65, collect, hits);
  g_assert_cmpuint (hits->len, ==, 3);
  g_assert_true (g_ptr_array_find (hits, GUINT_TO_POINTER (find (trace, track, "A")), NULL));
  g_assert_true (g_ptr_array_find (hits, GUINT_TO_POINTER (find (trace, track, "B")), NULL));
  g_assert_true (g_ptr_array_find (hits, GUINT_TO_POINTER (find (trace, track, "D")), NULL));

  g_ptr_array_set_size (hits, 0);
  ks_track_foreach_in_range (track, 100, 200, collect, hits);
  g_assert_cmpuint (hits->len, ==, 1);
  g_assert_cmpuint (GPOINTER_TO_UINT (hits->pdata[0]), ==, find (trace, track, "E"));

  g_ptr_array_set_size (hits, 0);
  ks_track_foreach_in_range (track, 200, 300, collect, hits);
  g_assert_cmpuint (hits->len, ==, 0);

  g_assert_cmpuint (ks_track_slice_at (track, 25, G_MAXUINT), ==, find (trace, track, "C"));
  g_assert_cmpuint (ks_track_slice_at (track, 55, G_MAXUINT), ==, find (trace, track, "A"));
  g_assert_cmpuint (ks_track_slice_at (track, 25, 1), ==, find (trace, track, "B"));
  g_assert_cmpuint (ks_track_slice_at (track, 150, G_MAXUINT), ==, KS_NO_INDEX);

  /* depth 1 holds B [10,50) and D [60,90): first ending after 55 is D */
  g_assert_cmpuint (ks_track_depth_lower_bound (track, 1, 55), ==, 1);
  g_assert_cmpuint (ks_track_depth_lower_bound (track, 1, 95), ==, 2);

  /* by start, whatever the depth: C starts at 20, D at 60, E at 100 */
  g_assert_cmpuint (ks_track_first_starting_from (track, G_MININT64), ==, find (trace, track, "A"));
  g_assert_cmpuint (ks_track_first_starting_from (track, 11), ==, find (trace, track, "C"));
  g_assert_cmpuint (ks_track_first_starting_from (track, 60), ==, find (trace, track, "D"));
  g_assert_cmpuint (ks_track_first_starting_from (track, 61), ==, find (trace, track, "E"));
  g_assert_cmpuint (ks_track_first_starting_from (track, 101), ==, track->n_slices);
}

/* A slice that starts inside another and ends after it is placed beside
 * it, at its depth (as Perfetto nests them): a Python frame ending just
 * after the next profiler step begins leaves every step on one row. */
static void
test_model_partial_overlap (void)
{
  g_autoptr(GError) error = NULL;
  KsTraceBuilder *b = ks_trace_builder_new (KS_FORMAT_CHROME_JSON);
  guint32 p = ks_trace_builder_get_process (b, 42);
  guint32 th = ks_trace_builder_get_thread (b, p, 43);
  guint32 t = ks_trace_builder_get_thread_track (b, th);
  const struct { const char *name; gint64 s, e; guint depth; } slices[] = {
    { "step1", 0, 100, 0 }, { "frame", 90, 110, 0 }, { "c1", 95, 98, 1 },
    { "step2", 105, 200, 0 }, { "op", 150, 160, 1 }, { "step3", 200, 300, 0 },
  };
  g_autoptr(KsTrace) trace = NULL;
  const KsTrack *track;

  for (guint i = 0; i < G_N_ELEMENTS (slices); i++)
    ks_trace_builder_add_slice (b, t, 1000 + slices[i].s, 1000 + slices[i].e, KS_SLICE_GENERIC,
                                ks_trace_builder_intern (b, slices[i].name), 0, 0, 0, 0, NULL);
  trace = ks_trace_builder_finish (b, NULL, &error);
  g_assert_no_error (error);
  track = &trace->tracks[t];

  g_assert_cmpuint (track->max_depth, ==, 2);
  for (guint i = 0; i < G_N_ELEMENTS (slices); i++)
    g_assert_cmpuint (track->depth[find (trace, track, slices[i].name)], ==, slices[i].depth);
  g_assert_cmpuint (ks_track_parent_slice (track, find (trace, track, "c1")), ==, find (trace, track, "frame"));
  g_assert_cmpuint (ks_track_parent_slice (track, find (trace, track, "op")), ==, find (trace, track, "step2"));
  /* c1 lies within step1's time but is frame's child */
  g_assert_cmpint (ks_track_self_time (track, find (trace, track, "step1")), ==, 100);
  g_assert_cmpint (ks_track_self_time (track, find (trace, track, "frame")), ==, 20 - 3);
  g_assert_cmpint (ks_track_self_time (track, find (trace, track, "step2")), ==, 95 - 10);
  /* ends still grow along depth 0: the first ending after 100 is frame */
  g_assert_cmpuint (track->by_depth[0][ks_track_depth_lower_bound (track, 0, 100)], ==, find (trace, track, "frame"));
  g_assert_cmpuint (ks_track_slice_at (track, 150, 0), ==, find (trace, track, "step2"));
}

static void
test_model_parent_self (void)
{
  guint32 t;
  g_autoptr(KsTrace) trace = build_nested (&t);
  const KsTrack *track = &trace->tracks[t];
  guint32 a = find (trace, track, "A");
  guint32 b = find (trace, track, "B");
  guint32 c = find (trace, track, "C");
  guint32 d = find (trace, track, "D");

  g_assert_cmpuint (ks_track_parent_slice (track, c), ==, b);
  g_assert_cmpuint (ks_track_parent_slice (track, b), ==, a);
  g_assert_cmpuint (ks_track_parent_slice (track, d), ==, a);
  g_assert_cmpuint (ks_track_parent_slice (track, a), ==, KS_NO_INDEX);

  g_assert_cmpint (ks_track_self_time (track, a), ==, 100 - 40 - 30);
  g_assert_cmpint (ks_track_self_time (track, b), ==, 40 - 10);
  g_assert_cmpint (ks_track_self_time (track, c), ==, 10);
}

static void
test_model_launch_flows (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  KsTraceBuilder *b = ks_trace_builder_new (KS_FORMAT_KINETO_JSON);
  KsGpuInfo info = { 0 };
  KsTraceCounts counts;
  guint32 p, t, cpu, gpu, other_gpu;

  p = ks_trace_builder_get_process (b, 1);
  t = ks_trace_builder_get_thread (b, p, 1);
  cpu = ks_trace_builder_get_thread_track (b, t);
  gpu = ks_trace_builder_get_stream_track (b, 0, 7);
  ks_trace_builder_add_slice (b, cpu, 100, 110, KS_SLICE_CUDA_RUNTIME,
                              ks_trace_builder_intern (b, "cudaLaunchKernel"), 0, 7, 0, 0, NULL);
  ks_trace_builder_add_slice (b, cpu, 120, 130, KS_SLICE_CUDA_DRIVER,
                              ks_trace_builder_intern (b, "cuLaunchKernel"), 0, 8, 0, 0, NULL);
  info.kernel.grid[0] = 4;
  ks_trace_builder_add_slice (b, gpu, 150, 200, KS_SLICE_KERNEL,
                              ks_trace_builder_intern (b, "k1"), 0, 7, 0, 0, &info);
  /* same correlation in another group (another file): not linked */
  ks_trace_builder_set_group (b, 1);
  other_gpu = ks_trace_builder_get_stream_track (b, 0, 7);
  g_assert_cmpuint (other_gpu, !=, gpu);
  ks_trace_builder_add_slice (b, other_gpu, 150, 200, KS_SLICE_KERNEL,
                              ks_trace_builder_intern (b, "k2"), 0, 8, 0, 0, &info);

  trace = ks_trace_builder_finish (b, NULL, &error);
  g_assert_no_error (error);
  ks_trace_get_counts (trace, &counts);
  g_assert_cmpuint (counts.by_kind[KS_SLICE_KERNEL], ==, 2);
  g_assert_cmpuint (counts.by_kind[KS_SLICE_CUDA_RUNTIME], ==, 1);
  g_assert_cmpuint (counts.launch_flows, ==, 1);
  g_assert_cmpuint (trace->n_flows, ==, 1);
  g_assert_cmpuint (trace->flows[0].from_track, ==, cpu);
  g_assert_cmpuint (trace->flows[0].to_track, ==, gpu);
  g_assert_cmpuint (trace->tracks[gpu].gpu[0].kernel.grid[0], ==, 4);
}

/* A thread track and a stream track of @n slices each, nested three
 * deep and a few out of order, the first @before added one by one, then
 * @reserve slices reserved for each track (0: none), then the rest in
 * runs of up to 7 and one by one in turn. */
static KsTrace *
build_reserved (guint32  n,
                guint32  before,
                guint64  reserve,
                guint32 *thread_track,
                guint32 *stream_track)
{
  g_autoptr(GError) error = NULL;
  KsTraceBuilder *b = ks_trace_builder_new (KS_FORMAT_KSCOPE);
  guint32 p = ks_trace_builder_get_process (b, 1);
  guint32 tracks[2];
  g_autofree gint64 *start = g_new (gint64, n);
  g_autofree gint64 *end = g_new (gint64, n);
  g_autofree guint32 *name = g_new (guint32, n);
  g_autofree guint32 *category = g_new (guint32, n);
  g_autofree guint32 *ids = g_new (guint32, n);
  g_autofree guint8 *kind = g_new (guint8, n);
  g_autofree KsGpuInfo *gpu = g_new0 (KsGpuInfo, n);
  guint32 names[3] = { ks_trace_builder_intern (b, "outer"), ks_trace_builder_intern (b, "middle"),
                       ks_trace_builder_intern (b, "inner") };
  KsTrace *trace;

  tracks[0] = ks_trace_builder_get_thread_track (b, ks_trace_builder_get_thread (b, p, 2));
  tracks[1] = ks_trace_builder_get_stream_track (b, 0, 7);
  for (guint32 i = 0; i < n; i++)
    {
      /* three deep: [100k, 100k+90), [100k+10, +80), [100k+20, +70) */
      gint64 outer = 100 * (gint64) (i / 3) + (i % 17 == 5 ? 50000 : 0);

      start[i] = 1000 + outer + 10 * (i % 3);
      end[i] = 1000 + outer + 90 - 10 * (i % 3);
      name[i] = names[i % 3];
      category[i] = names[(i + 1) % 3];
      ids[i] = i + 1;
      kind[i] = (guint8) (i % KS_N_SLICE_KINDS);
      gpu[i].kernel.grid[0] = i;
      gpu[i].kernel.registers = (guint16) (i * 7);
    }
  for (guint k = 0; k < 2; k++)
    {
      KsSliceColumns columns = { start, end, name, category, ids, ids, ids, kind, k == 1 ? gpu : NULL };
      guint32 i = 0;
      gboolean run = FALSE;

      for (; i < MIN (before, n); i++)
        g_assert_true (ks_trace_builder_add_slice (b, tracks[k], start[i], end[i], kind[i], name[i], category[i],
                                                   ids[i], ids[i], ids[i], k == 1 ? &gpu[i] : NULL));
      if (reserve > 0)
        ks_trace_builder_reserve_slices (b, tracks[k], reserve);
      for (; i < n; run = !run)
        if (run)
          {
            guint32 m = MIN (n - i, 1 + i % 7), first;

            g_assert_true (ks_trace_builder_add_slices (b, tracks[k], &columns, i, m, NULL, &first));
            g_assert_cmpuint (first, ==, i);
            i += m;
          }
        else
          {
            g_assert_true (ks_trace_builder_add_slice (b, tracks[k], start[i], end[i], kind[i], name[i], category[i],
                                                       ids[i], ids[i], ids[i], k == 1 ? &gpu[i] : NULL));
            i++;
          }
    }
  trace = ks_trace_builder_finish (b, NULL, &error);
  g_assert_no_error (error);
  *thread_track = tracks[0];
  *stream_track = tracks[1];
  return trace;
}

static void
assert_same_track (const KsTrack *a,
                   const KsTrack *b)
{
  guint32 n = a->n_slices;

  g_assert_cmpuint (b->n_slices, ==, n);
  g_assert_cmpuint (b->max_depth, ==, a->max_depth);
  g_assert_cmpmem (b->start, n * sizeof (gint64), a->start, n * sizeof (gint64));
  g_assert_cmpmem (b->end, n * sizeof (gint64), a->end, n * sizeof (gint64));
  g_assert_cmpmem (b->name_id, n * sizeof (guint32), a->name_id, n * sizeof (guint32));
  g_assert_cmpmem (b->category, n * sizeof (guint32), a->category, n * sizeof (guint32));
  g_assert_cmpmem (b->correlation, n * sizeof (guint32), a->correlation, n * sizeof (guint32));
  g_assert_cmpmem (b->external_id, n * sizeof (guint32), a->external_id, n * sizeof (guint32));
  g_assert_cmpmem (b->args, n * sizeof (guint32), a->args, n * sizeof (guint32));
  g_assert_cmpmem (b->slice_kind, n, a->slice_kind, n);
  g_assert_cmpmem (b->depth, n, a->depth, n);
  g_assert_true ((a->gpu == NULL) == (b->gpu == NULL));
  if (a->gpu != NULL)
    g_assert_cmpmem (b->gpu, n * sizeof (KsGpuInfo), a->gpu, n * sizeof (KsGpuInfo));
}

/* Tracks given room ahead (ks_trace_builder_reserve_slices()) for
 * fewer, as many or more slices than they get, before their first
 * slice or after some, packed (up to 64) or not: the same model as
 * tracks that doubled, the slices sorted and nested alike. */
static void
test_model_reserved_slices (void)
{
  static const guint32 sizes[] = { 1, 40, 64, 65, 300, 20000 };

  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    {
      guint32 n = sizes[s];
      guint32 thread, stream;
      g_autoptr(KsTrace) want = build_reserved (n, 0, 0, &thread, &stream);
      const guint64 reserves[] = { 1, n / 2 + 1, n - 1, n, n + 1, 3 * (guint64) n + 70, 40 * (guint64) n };
      const guint32 befores[] = { 0, 1, n / 3, n };

      /* the slices came out of order: finish() sorted them */
      g_assert_cmpuint (want->tracks[thread].n_slices, ==, n);
      g_assert_cmpuint (want->tracks[stream].n_slices, ==, n);
      g_assert_cmpuint (want->tracks[stream].gpu[0].kernel.registers, ==, 0);
      for (guint r = 0; r < G_N_ELEMENTS (reserves); r++)
        for (guint k = 0; k < G_N_ELEMENTS (befores); k++)
          {
            guint32 thread2, stream2;
            g_autoptr(KsTrace) got = build_reserved (n, befores[k], reserves[r], &thread2, &stream2);

            g_assert_cmpuint (thread2, ==, thread);
            g_assert_cmpuint (stream2, ==, stream);
            assert_same_track (&want->tracks[thread], &got->tracks[thread]);
            assert_same_track (&want->tracks[stream], &got->tracks[stream]);
          }
    }
}

/* Times from a damaged file, at the ends of the int64 range (found by
 * fuzz-record-wire): they are left out with a warning, and the duration
 * of the rest does not overflow. */
static void
test_model_far_times (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  KsTraceBuilder *b = ks_trace_builder_new (KS_FORMAT_KSCOPE);
  guint32 p = ks_trace_builder_get_process (b, 42);
  guint32 track = ks_trace_builder_get_thread_track (b, ks_trace_builder_get_thread (b, p, 43));
  guint32 counter = ks_trace_builder_get_counter (b, "GPU utilization", "%", 0, G_MAXUINT32);
  guint32 name = ks_trace_builder_intern (b, "x");
  KsInstant instant = { 0 };

  ks_trace_builder_add_slice (b, track, 1000, 1100, KS_SLICE_GENERIC, name, 0, 0, 0, 0, NULL);
  ks_trace_builder_add_slice (b, track, G_GINT64_CONSTANT (4611686018427387904),
                              G_GINT64_CONSTANT (4611686018427387904), KS_SLICE_GENERIC, name, 0, 0, 0, 0, NULL);
  ks_trace_builder_add_slice (b, track, 1200, G_MAXINT64, KS_SLICE_GENERIC, name, 0, 0, 0, 0, NULL);
  ks_trace_builder_add_counter_sample (b, counter, G_MININT64, 50.0);
  ks_trace_builder_add_counter_sample (b, counter, 1050, 40.0);
  instant.ts = -G_GINT64_CONSTANT (4611686018427387905);
  instant.name = name;
  ks_trace_builder_add_instant (b, &instant);
  trace = ks_trace_builder_finish (b, NULL, &error);
  g_assert_no_error (error);

  g_assert_cmpuint (trace->tracks[track].n_slices, ==, 1);
  g_assert_cmpint (trace->origin_ns, ==, 1000);
  g_assert_cmpint (trace->duration_ns, ==, 100);
  g_assert_cmpuint (trace->n_instants, ==, 0);
  g_assert_nonnull (strstr (ks_trace_get_metadata (trace, "warnings"), "4 events with impossible times"));
}

/* Begin/end pairing in the builder: innermost first per stack, the
 * args of both ends merged, and what is left open closed at the end (or
 * at its own start, when that is later). */
static void
test_model_open_ranges (void)
{
  g_autoptr(GString) args_buf = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  KsTraceBuilder *b = ks_trace_builder_new (KS_FORMAT_CHROME_JSON);
  guint32 p = ks_trace_builder_get_process (b, 1);
  guint32 t1 = ks_trace_builder_get_thread (b, p, 1);
  guint32 t2 = ks_trace_builder_get_thread (b, p, 2);
  guint32 k1 = ks_trace_builder_get_thread_track (b, t1);
  guint32 k2 = ks_trace_builder_get_thread_track (b, t2);
  KsOpenRange o = { 0 };
  const KsTrack *track;

  o.track = k1;
  o.kind = KS_SLICE_GENERIC;
  o.start = 1000;
  o.name = ks_trace_builder_intern (b, "outer");
  o.args_text = g_strdup ("{\"a\":1}");
  ks_trace_builder_begin_range (b, t1, &o);
  g_assert_null (o.args_text);   /* taken */
  o.start = 1010;
  o.name = ks_trace_builder_intern (b, "inner");
  o.args_text = g_strdup ("{\"i\":3}");
  ks_trace_builder_begin_range (b, t1, &o);
  o.track = k2;
  o.start = 1500;
  o.name = ks_trace_builder_intern (b, "late");
  o.args = ks_trace_builder_add_args (b, "{\"z\":0}", 7);
  ks_trace_builder_begin_range (b, t2, &o);
  /* on a later stack: its end moves with "late" */
  o.start = 1300;
  o.name = ks_trace_builder_intern (b, "after");
  ks_trace_builder_begin_range (b, 99, &o);
  g_assert_cmpuint (ks_trace_builder_get_n_open_ranges (b, t1), ==, 2);
  g_assert_cmpuint (ks_trace_builder_get_n_open_ranges (b, t2), ==, 1);
  g_assert_cmpuint (ks_trace_builder_get_n_open_ranges (b, 77), ==, 0);

  /* an end without a begin on its stack */
  g_assert_false (ks_trace_builder_end_range (b, 77, 1020, NULL));
  g_assert_true (ks_trace_builder_end_range (b, t1, 1020, g_strdup ("{\"b\":2}")));
  g_assert_cmpuint (ks_trace_builder_get_n_open_ranges (b, t1), ==, 1);
  /* "outer" at 1200; "late" starts after that and keeps its start */
  g_assert_cmpuint (ks_trace_builder_close_open_ranges (b, 1200), ==, 3);
  g_assert_cmpuint (ks_trace_builder_get_n_open_ranges (b, t1), ==, 0);
  g_assert_cmpuint (ks_trace_builder_close_open_ranges (b, 1200), ==, 0);

  trace = ks_trace_builder_finish (b, NULL, &error);
  g_assert_no_error (error);
  track = &trace->tracks[k1];
  g_assert_cmpuint (track->n_slices, ==, 2);
  g_assert_cmpint (track->end[find (trace, track, "inner")] - track->start[find (trace, track, "inner")], ==, 10);
  g_assert_cmpstr (ks_trace_slice_args (trace, track, find (trace, track, "inner"), args_buf), ==, "{\"i\":3,\"b\":2}");
  g_assert_cmpint (track->end[find (trace, track, "outer")] - track->start[find (trace, track, "outer")], ==, 200);
  g_assert_cmpstr (ks_trace_slice_args (trace, track, find (trace, track, "outer"), args_buf), ==, "{\"a\":1}");
  track = &trace->tracks[k2];
  g_assert_cmpuint (track->n_slices, ==, 2);
  g_assert_cmpint (track->end[find (trace, track, "late")], ==, track->start[find (trace, track, "late")]);
  g_assert_cmpint (track->end[find (trace, track, "after")] - track->start[find (trace, track, "after")], ==, 200);
  g_assert_cmpstr (ks_trace_slice_args (trace, track, find (trace, track, "late"), args_buf), ==, "{\"z\":0}");
}

/* A range whose begin's args were interned (as the SQLite reader's are)
 * and whose end has args of its own: the slice has both. */
static void
test_model_range_interned_args (void)
{
  g_autoptr(GString) args_buf = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  KsTraceBuilder *b = ks_trace_builder_new (KS_FORMAT_CHROME_JSON);
  guint32 p = ks_trace_builder_get_process (b, 1);
  guint32 t = ks_trace_builder_get_thread (b, p, 2);
  guint32 k = ks_trace_builder_get_thread_track (b, t);
  KsOpenRange o = { 0 };

  o.track = k;
  o.kind = KS_SLICE_GENERIC;
  o.start = 1000;
  o.name = ks_trace_builder_intern (b, "step");
  o.args = ks_trace_builder_add_args (b, "{\"a\":1,\"s\":\"x\"}", 15);
  ks_trace_builder_begin_range (b, t, &o);
  g_assert_true (ks_trace_builder_end_range (b, t, 1100, g_strdup ("{\"b\":2}")));
  o.start = 1200;
  ks_trace_builder_begin_range (b, t, &o);
  g_assert_true (ks_trace_builder_end_range (b, t, 1300, NULL));

  trace = ks_trace_builder_finish (b, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (trace->tracks[k].n_slices, ==, 2);
  g_assert_cmpstr (ks_trace_slice_args (trace, &trace->tracks[k], 0, args_buf), ==, "{\"a\":1,\"s\":\"x\",\"b\":2}");
  g_assert_cmpstr (ks_trace_slice_args (trace, &trace->tracks[k], 1, args_buf), ==, "{\"a\":1,\"s\":\"x\"}");
}

/* Samples of one thread every 10 ns from 1000, then a pause of 100 ns
 * (more than 4 intervals), given out of order:
 *   1000 main>a   1010 main>a   1020 main>b   1030 main>b>c
 *   1130 main>b   1140 other
 * and one sample of a second thread. */
static void
test_model_samples (void)
{
  g_autoptr(GString) args_buf = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  KsTraceBuilder *b = ks_trace_builder_new (KS_FORMAT_KSCOPE);
  guint32 p = ks_trace_builder_get_process (b, 42);
  guint32 t1 = ks_trace_builder_get_thread (b, p, 43);
  guint32 t2 = ks_trace_builder_get_thread (b, p, 44);
  guint32 file = ks_trace_builder_intern (b, "/src/app.py");
  KsSampleFrame main_ = { ks_trace_builder_intern (b, "main"), file, 1 };
  KsSampleFrame fa = { ks_trace_builder_intern (b, "a"), file, 10 };
  KsSampleFrame fb = { ks_trace_builder_intern (b, "b"), file, 20 };
  KsSampleFrame fc = { ks_trace_builder_intern (b, "c"), file, 30 };
  KsSampleFrame other = { ks_trace_builder_intern (b, "other"), file, 40 };
  struct { gint64 ts; KsSampleFrame f[3]; guint n; } samples[] = {
    { 1030, { fc, fb, main_ }, 3 }, { 1000, { fa, main_ }, 2 }, { 1020, { fb, main_ }, 2 },
    { 1010, { fa, main_ }, 2 }, { 1140, { other }, 1 }, { 1130, { fb, main_ }, 2 },
  };
  const struct { const char *name; guint depth; gint64 s, e; guint n; } want[] = {
    { "main", 0, 0, 40, 4 }, { "a", 1, 0, 20, 2 }, { "b", 1, 20, 40, 2 }, { "c", 2, 30, 40, 1 },
    { "main", 0, 130, 140, 1 }, { "b", 1, 130, 140, 1 }, { "other", 0, 140, 150, 1 },
  };
  g_autoptr(KsTrace) trace = NULL;
  const KsTrack *track = NULL;
  const KsSample *s;
  guint32 n;

  for (guint i = 0; i < G_N_ELEMENTS (samples); i++)
    g_assert_true (ks_trace_builder_add_sample (b, t1, samples[i].ts, samples[i].f, samples[i].n));
  g_assert_true (ks_trace_builder_add_sample (b, t2, 1200, &main_, 1));
  g_assert_false (ks_trace_builder_add_sample (b, t2, 1300, &main_, 0));
  trace = ks_trace_builder_finish (b, NULL, &error);
  g_assert_no_error (error);

  g_assert_cmpuint (trace->n_samples, ==, 7);
  /* main, a, b, c under b, other: main of thread 2 is the same node */
  g_assert_cmpuint (trace->n_stack_nodes, ==, 5);
  s = ks_trace_thread_samples (trace, t1, &n);
  g_assert_cmpuint (n, ==, 6);
  for (guint i = 1; i < n; i++)
    g_assert_cmpint (s[i - 1].ts, <, s[i].ts);
  g_assert_cmpint (s[3].ts, ==, 30);
  g_assert_cmpstr (ks_trace_string (trace, trace->stack_nodes[s[3].node].function), ==, "c");
  g_assert_cmpuint (trace->stack_nodes[s[3].node].depth, ==, 2);
  g_assert_cmpuint (trace->stack_nodes[s[3].node].line, ==, 30);
  g_assert_cmpstr (ks_trace_string (trace, trace->stack_nodes[trace->stack_nodes[s[3].node].parent].function),
                   ==, "b");

  for (guint32 i = 0; i < trace->n_tracks; i++)
    if (trace->tracks[i].kind == KS_TRACK_SAMPLES && trace->tracks[i].thread == t1)
      track = &trace->tracks[i];
  g_assert_nonnull (track);
  g_assert_cmpuint (track->parent, ==, trace->threads[t1].track);
  g_assert_cmpuint (track->n_slices, ==, G_N_ELEMENTS (want));
  g_assert_cmpuint (track->max_depth, ==, 3);
  for (guint i = 0; i < G_N_ELEMENTS (want); i++)
    {
      guint32 k = KS_NO_INDEX;
      g_autofree char *args = g_strdup_printf ("{\"file\":\"/src/app.py\",\"line\":%s,\"samples\":%u}",
                                               strcmp (want[i].name, "main") == 0 ? "1"
                                               : strcmp (want[i].name, "a") == 0 ? "10"
                                               : strcmp (want[i].name, "b") == 0 ? "20"
                                               : strcmp (want[i].name, "c") == 0 ? "30" : "40",
                                               want[i].n);

      for (guint32 j = 0; j < track->n_slices; j++)
        if (track->start[j] == want[i].s && track->depth[j] == want[i].depth)
          k = j;
      g_assert_cmpuint (k, !=, KS_NO_INDEX);
      g_assert_cmpuint (track->slice_kind[k], ==, KS_SLICE_SAMPLE);
      g_assert_cmpstr (ks_trace_string (trace, track->name_id[k]), ==, want[i].name);
      g_assert_cmpint (track->end[k], ==, want[i].e);
      g_assert_cmpstr (ks_trace_slice_args (trace, track, k, args_buf), ==, args);
    }

  /* a single sample lasts the default 1 ms */
  track = NULL;
  for (guint32 i = 0; i < trace->n_tracks; i++)
    if (trace->tracks[i].kind == KS_TRACK_SAMPLES && trace->tracks[i].thread == t2)
      track = &trace->tracks[i];
  g_assert_nonnull (track);
  g_assert_cmpuint (track->n_slices, ==, 1);
  g_assert_cmpint (track->end[0] - track->start[0], ==, 1000000);
}

/* Stacks deeper than the most kept lose their outer frames, and say so. */
static void
test_model_samples_deep (void)
{
  g_autoptr(GError) error = NULL;
  KsTraceBuilder *b = ks_trace_builder_new (KS_FORMAT_KSCOPE);
  guint32 p = ks_trace_builder_get_process (b, 1);
  guint32 t = ks_trace_builder_get_thread (b, p, 1);
  g_autofree KsSampleFrame *frames = g_new0 (KsSampleFrame, 1000);
  g_autoptr(KsTrace) trace = NULL;

  for (guint i = 0; i < 1000; i++)
    {
      g_autofree char *name = g_strdup_printf ("f%u", i);

      frames[i].function = ks_trace_builder_intern (b, name);
      frames[i].line = i;
    }
  g_assert_true (ks_trace_builder_add_sample (b, t, 5, frames, 1000));
  trace = ks_trace_builder_finish (b, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (trace->n_stack_nodes, ==, KS_TRACE_MAX_STACK_DEPTH);
  g_assert_cmpstr (ks_trace_string (trace, trace->stack_nodes[trace->samples[0].node].function), ==, "f0");
  g_assert_cmpuint (trace->stack_nodes[trace->samples[0].node].depth, ==, KS_TRACE_MAX_STACK_DEPTH - 1);
  g_assert_nonnull (strstr (ks_trace_get_metadata (trace, "warnings"), "deeper than 256 frames"));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/model/depths", test_model_depths);
  g_test_add_func ("/model/ranges", test_model_ranges);
  g_test_add_func ("/model/range-interned-args", test_model_range_interned_args);
  g_test_add_func ("/model/parent-self", test_model_parent_self);
  g_test_add_func ("/model/partial-overlap", test_model_partial_overlap);
  g_test_add_func ("/model/launch-flows", test_model_launch_flows);
  g_test_add_func ("/model/reserved-slices", test_model_reserved_slices);
  g_test_add_func ("/model/far-times", test_model_far_times);
  g_test_add_func ("/model/open-ranges", test_model_open_ranges);
  g_test_add_func ("/model/samples", test_model_samples);
  g_test_add_func ("/model/samples-deep", test_model_samples_deep);
  return g_test_run ();
}
