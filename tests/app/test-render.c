/* test-render.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gstdio.h>
#include <math.h>

#include "ks-analysis.h"
#include "ks-gpu-series.h"
#include "ks-render.h"
#include "ks-test-samples.h"
#include "ks-trace-builder.h"
#include "ks-trace-loader.h"
#include "test-render-util.h"

/* The expected values below were computed from the fixture JSON with a
 * separate python3 script, not with this code. */
#define LB_KERNEL_NAME "sm80_xmma_wgrad_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nhwc_tilesize64x64x64_stage4_warpsize2x2x1_g1_tensor16x8x8_execute_kernel__5x_cudnn"

/* One thread: 1000 slices of 10 ns every 20 ns from 0, a second run of
 * 50 slices of 10 ns every 20 ns from 100 µs, and one 1 ms slice at 1 ms. */
static KsTrace *
build_fold_trace (void)
{
  KsTraceBuilder *b = ks_trace_builder_new (KS_FORMAT_CHROME_JSON);
  guint32 p = ks_trace_builder_get_process (b, 1);
  guint32 th = ks_trace_builder_get_thread (b, p, 1);
  guint32 track = ks_trace_builder_get_thread_track (b, th);
  guint32 small = ks_trace_builder_intern (b, "small");
  guint32 big = ks_trace_builder_intern (b, "big");
  g_autoptr(GError) error = NULL;
  KsTrace *trace;

  for (int i = 0; i < 1000; i++)
    ks_trace_builder_add_slice (b, track, i * 20, i * 20 + 10, KS_SLICE_GENERIC, small, 0, 0, 0, 0, NULL);
  for (int i = 0; i < 50; i++)
    ks_trace_builder_add_slice (b, track, 100000 + i * 20, 100000 + i * 20 + 10, KS_SLICE_GENERIC, small, 0, 0, 0, 0, NULL);
  ks_trace_builder_add_slice (b, track, 1000000, 2000000, KS_SLICE_GENERIC, big, 0, 0, 0, 0, NULL);

  trace = ks_trace_builder_finish (b, NULL, &error);
  g_assert_no_error (error);
  return trace;
}

static void
test_lod_folding (void)
{
  g_autoptr(KsTrace) trace = build_fold_trace ();
  g_autoptr(GArray) items = g_array_new (FALSE, FALSE, sizeof (KsLodItem));
  const KsTrack *track = &trace->tracks[0];
  const KsLodItem *it;
  KsTimeView view;

  g_assert_cmpuint (trace->n_tracks, ==, 1);
  g_assert_cmpuint (track->n_slices, ==, 1051);
  g_assert_cmpuint (track->max_depth, ==, 1);

  /* 1 µs per pixel: 3 px = 3 µs. Each run is far narrower than that
   * and its gaps too, so each run folds into one block. */
  view.t0 = 0;
  view.ns_per_px = 1000;
  view.width = 2000;
  ks_lod_slices (track, 0, &view, KS_FOLD_MIN_PX, items);
  g_assert_cmpuint (items->len, ==, 3);

  it = &g_array_index (items, KsLodItem, 0);
  g_assert_true (it->folded);
  g_assert_cmpuint (it->count, ==, 1000);
  g_assert_cmpfloat_with_epsilon (it->x0, 0.0, 1e-6);
  /* 19.99 µs of slices, but a folded block is drawn at least 3 px wide. */
  g_assert_cmpfloat_with_epsilon (it->x1, 19.99, 1e-3);
  g_assert_cmpuint (track->start[it->last], ==, 999 * 20);

  it = &g_array_index (items, KsLodItem, 1);
  g_assert_true (it->folded);
  g_assert_cmpuint (it->count, ==, 50);
  g_assert_cmpfloat_with_epsilon (it->x0, 100.0, 1e-6);

  it = &g_array_index (items, KsLodItem, 2);
  g_assert_false (it->folded);
  g_assert_cmpuint (it->count, ==, 1);
  g_assert_cmpfloat_with_epsilon (it->x0, 1000.0, 1e-6);
  g_assert_cmpfloat_with_epsilon (it->x1, 2000.0, 1e-6);

  /* 1 ns per pixel: every slice is 10 px wide, nothing folds; the view
   * [0, 1000) holds the slices starting at 0, 20, ..., 1000. */
  g_array_set_size (items, 0);
  view.ns_per_px = 1;
  view.width = 1000;
  ks_lod_slices (track, 0, &view, KS_FOLD_MIN_PX, items);
  g_assert_cmpuint (items->len, ==, 51);
  for (guint i = 0; i < items->len; i++)
    {
      it = &g_array_index (items, KsLodItem, i);
      g_assert_false (it->folded);
      g_assert_cmpuint (it->count, ==, 1);
    }

  /* 4 ns per pixel: slices are 2.5 px wide, gaps 2.5 px; they fold into
   * one block per visible run: [0, 4000 ns) holds 200 slices. */
  g_array_set_size (items, 0);
  view.ns_per_px = 4;
  view.width = 1000;
  ks_lod_slices (track, 0, &view, KS_FOLD_MIN_PX, items);
  g_assert_cmpuint (items->len, ==, 1);
  it = &g_array_index (items, KsLodItem, 0);
  g_assert_true (it->folded);
  g_assert_cmpuint (it->count, ==, 201);

  /* A view that starts inside the big slice shows only it. */
  g_array_set_size (items, 0);
  view.t0 = 1500000;
  view.ns_per_px = 100;
  view.width = 1000;
  ks_lod_slices (track, 0, &view, KS_FOLD_MIN_PX, items);
  g_assert_cmpuint (items->len, ==, 1);
  it = &g_array_index (items, KsLodItem, 0);
  g_assert_cmpuint (track->start[it->first], ==, 1000000);
  g_assert_cmpfloat_with_epsilon (it->x0, -5000.0, 1e-6);
}

/* Search matches too small to draw on their own are ticked inside their
 * folded block, at their own place. */
static void
test_folded_matches (void)
{
  KsTraceBuilder *b = ks_trace_builder_new (KS_FORMAT_CHROME_JSON);
  guint32 p = ks_trace_builder_get_process (b, 1);
  guint32 th = ks_trace_builder_get_thread (b, p, 1);
  guint32 track = ks_trace_builder_get_thread_track (b, th);
  guint32 small = ks_trace_builder_intern (b, "small");
  guint32 needle = ks_trace_builder_intern (b, "needle");
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autofree guint8 *matches = NULL;
  const KsTheme *theme = ks_theme_get (FALSE);
  KsTimelineLayout *layout;
  KsTimeView view = { 0, 1000, 2000 };
  KsPrims prims;
  guint row, n_ticks = 0;

  /* Two runs of 10 ns slices every 20 ns, from 0 and from 100 µs; the
   * 501st slice of the first run, at 10 µs, is the only "needle". */
  for (int i = 0; i < 1000; i++)
    ks_trace_builder_add_slice (b, track, i * 20, i * 20 + 10, KS_SLICE_GENERIC,
                                i == 500 ? needle : small, 0, 0, 0, 0, NULL);
  for (int i = 0; i < 50; i++)
    ks_trace_builder_add_slice (b, track, 100000 + i * 20, 100000 + i * 20 + 10, KS_SLICE_GENERIC,
                                small, 0, 0, 0, 0, NULL);
  trace = ks_trace_builder_finish (b, NULL, &error);
  g_assert_no_error (error);

  layout = ks_timeline_layout_new (trace);
  row = ks_timeline_layout_find_track_row (layout, 0);
  g_assert_cmpuint (row, !=, KS_NO_INDEX);
  matches = g_new0 (guint8, trace->n_strings);
  matches[ks_trace_lookup_string (trace, "needle")] = 1;

  /* Without a search nothing has the match colour. */
  ks_prims_init (&prims);
  ks_timeline_layout_build_prims (layout, row, &view, theme, NULL, &prims);
  for (guint i = 0; i < prims.rects->len; i++)
    g_assert_cmphex (g_array_index (prims.rects, KsPrimRect, i).color, !=, theme->match_outline);

  /* 1 µs per pixel: both runs fold; one tick, 2 px wide, at 10 µs = 10 px. */
  ks_prims_reset (&prims);
  ks_timeline_layout_build_prims (layout, row, &view, theme, matches, &prims);
  for (guint i = 0; i < prims.rects->len; i++)
    {
      const KsPrimRect *r = &g_array_index (prims.rects, KsPrimRect, i);

      if (r->color != theme->match_outline)
        continue;
      n_ticks++;
      g_assert_cmpfloat_with_epsilon (r->x, 10.0, 1e-3);
      g_assert_cmpfloat_with_epsilon (r->w, 2.0, 1e-3);
      g_assert_cmpfloat (r->h, >, KS_LANE_HEIGHT / 2);
    }
  g_assert_cmpuint (n_ticks, ==, 1);

  /* Every slice matching: one tick per 2 px, not one per slice; the
   * 20 px of the first run hold 9 (at 0, 2, ... 16 px: a tick stays
   * inside its block), the second run one. */
  matches[ks_trace_lookup_string (trace, "small")] = 1;
  ks_prims_reset (&prims);
  ks_timeline_layout_build_prims (layout, row, &view, theme, matches, &prims);
  {
    float last = -10;

    n_ticks = 0;
    for (guint i = 0; i < prims.rects->len; i++)
      {
        const KsPrimRect *r = &g_array_index (prims.rects, KsPrimRect, i);

        if (r->color != theme->match_outline)
          continue;
        n_ticks++;
        g_assert_cmpfloat (r->x, >=, last + 2 - 1e-3);
        last = r->x;
      }
  }
  g_assert_cmpuint (n_ticks, ==, 10);

  ks_prims_clear (&prims);
  ks_timeline_layout_free (layout);
}

/* A process with nothing but a name (a trace-event file's process_name)
 * is an empty group; one with neither name nor rows is not shown. */
static void
test_empty_named_process (void)
{
  KsTraceBuilder *b = ks_trace_builder_new (KS_FORMAT_CHROME_JSON);
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  KsTimelineLayout *layout;
  guint32 p = ks_trace_builder_get_process (b, 7);
  guint32 th = ks_trace_builder_get_thread (b, p, 7);
  guint32 t = ks_trace_builder_get_thread_track (b, th);
  const char *expected[] = { "process 7", "thread 7", "nobody (pid 99)" };

  ks_trace_builder_set_process_info (b, ks_trace_builder_get_process (b, 99), "nobody", NULL, NULL, G_MININT32);
  ks_trace_builder_get_process (b, 100);
  ks_trace_builder_add_slice (b, t, 0, 300, KS_SLICE_GENERIC, ks_trace_builder_intern (b, "x"), 0, 0, 0, 0, NULL);
  trace = ks_trace_builder_finish (b, NULL, &error);
  g_assert_no_error (error);

  layout = ks_timeline_layout_new (trace);
  for (guint i = 0; i < ks_timeline_layout_get_n_rows (layout); i++)
    g_test_message ("%s", ks_timeline_layout_get_row (layout, i)->label);
  g_assert_cmpuint (ks_timeline_layout_get_n_rows (layout), ==, G_N_ELEMENTS (expected));
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    g_assert_cmpstr (ks_timeline_layout_get_row (layout, i)->label, ==, expected[i]);
  g_assert_cmpint (ks_timeline_layout_get_row (layout, 2)->kind, ==, KS_ROW_GROUP);
  ks_timeline_layout_free (layout);
}

/* Allocator events (PyTorch's [memory] instants) become a counter row of
 * allocated bytes per process and device, at the end of the process. */
static void
test_memory_rows (void)
{
  KsTraceBuilder *b = ks_trace_builder_new (KS_FORMAT_KINETO_JSON);
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  KsTimelineLayout *layout;
  guint32 p = ks_trace_builder_get_process (b, 7);
  guint32 th = ks_trace_builder_get_thread (b, p, 7);
  guint32 t = ks_trace_builder_get_thread_track (b, th);
  guint32 n = ks_trace_builder_intern (b, "x");
  /* GPU 0: 1 MiB at 0, 3 MiB at 100 ns, 0.5 MiB at 200 ns; host: 4 bytes
   * at 50 ns; one event with no total, which is left out. */
  const KsMemoryEvent events[] = {
    { 0, 0x10, 1048576, 1048576, 2097152, th, 0 },
    { 50, 0x20, 4, 4, -1, th, -1 },
    { 100, 0x30, 2097152, 3145728, 4194304, th, 0 },
    { 150, 0x40, 8, -1, -1, th, 0 },
    { 200, 0x10, -2621440, 524288, 4194304, th, 0 },
  };
  /* reserved minus allocated: 1 MiB, 1 MiB, 3.5 MiB */
  const char *expected[] = { "process 7", "thread 7", "Allocated on GPU 0, peak 3.0\u00a0MiB",
                             "Reserved, not allocated, on GPU 0, peak 3.5\u00a0MiB", "Allocated on CPU, peak 4 bytes" };
  const KsRow *row;
  KsTimeView view = { 0, 1, 300 };
  KsPrims prims;
  float top_y = G_MAXFLOAT, top_x = 0;

  ks_trace_builder_add_slice (b, t, 0, 300, KS_SLICE_CPU_OP, n, 0, 0, 0, 0, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (events); i++)
    ks_trace_builder_add_memory_event (b, &events[i]);
  trace = ks_trace_builder_finish (b, NULL, &error);
  g_assert_no_error (error);

  layout = ks_timeline_layout_new (trace);
  g_assert_cmpuint (ks_timeline_layout_get_n_rows (layout), ==, G_N_ELEMENTS (expected));
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    g_assert_cmpstr (ks_timeline_layout_get_row (layout, i)->label, ==, expected[i]);

  row = ks_timeline_layout_get_row (layout, 2);
  g_assert_cmpint (row->kind, ==, KS_ROW_COUNTER);
  g_assert_cmpuint (row->indent, ==, 1);
  g_assert_cmpuint (row->group, ==, 0);
  g_assert_cmpfloat (row->counter_min, ==, 0);
  g_assert_cmpfloat (row->counter_max, ==, 3145728);
  g_assert_cmpfloat (ks_timeline_layout_get_row (layout, 3)->counter_max, ==, 3670016);

  /* The line is highest from 100 to 200 ns (1 ns per pixel). */
  ks_prims_init (&prims);
  ks_timeline_layout_build_prims (layout, 2, &view, ks_theme_get (FALSE), NULL, &prims);
  g_assert_cmpuint (prims.rects->len, >, 0);
  for (guint i = 0; i < prims.rects->len; i++)
    {
      const KsPrimRect *r = &g_array_index (prims.rects, KsPrimRect, i);

      if (r->y < top_y)
        {
          top_y = r->y;
          top_x = r->x;
        }
    }
  g_assert_cmpfloat (top_x, >=, 100);
  g_assert_cmpfloat (top_x, <, 200);
  ks_prims_clear (&prims);

  /* The analysis' memory curve is made of the same series: the event
   * without a total moves neither (it used to count as 8 more bytes in
   * the analysis, a peak of 3145736 at 150 ns). Beside the allocator's
   * events (reserved known) it counts as a CUDA-level row and is no
   * point of the curve either. */
  {
    g_autoptr(KsAnalysis) analysis = ks_analysis_compute (trace, NULL, NULL, NULL, &error);
    const KsMemoryCurve *curves;
    guint n_curves = 0;

    g_assert_no_error (error);
    curves = ks_analysis_get_memory_curves (analysis, &n_curves);
    g_assert_cmpuint (n_curves, ==, 2);
    g_assert_cmpint (curves[0].device, ==, 0);
    g_assert_cmpint (curves[0].peak_allocated, ==, (gint64)row->counter_max);
    g_assert_cmpint (curves[0].peak_allocated_ts, ==, 100);
    g_assert_cmpuint (curves[0].n_points, ==, 3);
    g_assert_cmpint (curves[0].points[1].allocated, ==, 3145728);
    g_assert_cmpint (curves[0].points[2].ts, ==, 200);
    g_assert_cmpint (curves[0].points[2].allocated, ==, 524288);
  }
  ks_timeline_layout_free (layout);
}

static void
test_lod_counter (void)
{
  KsTraceBuilder *b = ks_trace_builder_new (KS_FORMAT_CHROME_JSON);
  guint32 c = ks_trace_builder_get_counter (b, "util", "%", 0, KS_NO_INDEX);
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  float mins[10], maxs[10];
  gboolean has[10];
  KsTimeView view = { 0, 100, 10 };

  /* Samples at 0, 100, 110, 120 and 600 ns once shifted to the trace start. */
  ks_trace_builder_add_counter_sample (b, c, 1050, 5);
  ks_trace_builder_add_counter_sample (b, c, 1150, 10);
  ks_trace_builder_add_counter_sample (b, c, 1160, 2);
  ks_trace_builder_add_counter_sample (b, c, 1170, 7);
  ks_trace_builder_add_counter_sample (b, c, 1650, 1);
  trace = ks_trace_builder_finish (b, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (trace->n_counters, ==, 1);

  view.t0 = -150; /* columns start at -150, -50, 50, 150, ... */
  ks_lod_counter (&trace->counters[0], &view, mins, maxs, has);
  g_assert_false (has[0]);
  g_assert_true (has[1]);
  g_assert_cmpfloat (mins[1], ==, 5);
  g_assert_cmpfloat (maxs[1], ==, 5);
  /* Column 2 ([50, 150)) holds 10, 2, 7 and starts from the carried 5. */
  g_assert_true (has[2]);
  g_assert_cmpfloat (mins[2], ==, 2);
  g_assert_cmpfloat (maxs[2], ==, 10);
  /* The value holds (7) until the next sample. */
  g_assert_cmpfloat (mins[4], ==, 7);
  g_assert_cmpfloat (maxs[4], ==, 7);
  g_assert_cmpfloat (mins[7], ==, 1);
  g_assert_cmpfloat (maxs[7], ==, 7);
  g_assert_cmpfloat (maxs[9], ==, 1);
}

static void
test_rows (void)
{
  g_autoptr(KsTrace) trace = load_fixture ("loader_bound.pt.trace.json.gz");
  g_autoptr(KsTimelineLayout) layout = ks_timeline_layout_new (trace);
  const KsRow *row;
  guint n_groups = 0, n_streams = 0, n_threads = 0;
  guint stream_row = KS_NO_INDEX;
  int height;

  for (guint i = 0; i < ks_timeline_layout_get_n_rows (layout); i++)
    {
      row = ks_timeline_layout_get_row (layout, i);
      if (row->kind == KS_ROW_GROUP)
        n_groups++;
      else if (row->kind == KS_ROW_SLICES && trace->tracks[row->index].kind == KS_TRACK_STREAM)
        {
          n_streams++;
          stream_row = i;
        }
      else if (row->kind == KS_ROW_SLICES && trace->tracks[row->index].kind == KS_TRACK_THREAD)
        n_threads++;
    }

  /* GPU 0, python3 (pid 455) and the "Spans" process; one stream (7);
   * threads 455 and 486 of pid 455 and "PyTorch Profiler" of "Spans". */
  row = ks_timeline_layout_get_row (layout, 0);
  g_assert_cmpint (row->kind, ==, KS_ROW_GROUP);
  g_assert_cmpint (row->group_kind, ==, KS_GROUP_GPU);
  g_assert_true (g_str_has_prefix (row->label, "GPU 0"));
  g_assert_cmpuint (n_streams, ==, 1);
  g_assert_cmpuint (n_threads, ==, 3);
  g_assert_cmpuint (n_groups, ==, 3);

  row = ks_timeline_layout_get_row (layout, stream_row);
  g_assert_cmpstr (row->label, ==, "stream 7");
  g_assert_cmpuint (row->group, ==, 0);
  /* 176 kernels, 8 memcpy and 32 memset on stream 7. */
  g_assert_cmpuint (trace->tracks[row->index].n_slices, ==, 216);
  /* The annotation row follows its stream, one level deeper. */
  row = ks_timeline_layout_get_row (layout, stream_row + 1);
  g_assert_cmpint (trace->tracks[row->index].kind, ==, KS_TRACK_GPU_ANNOTATION);
  g_assert_cmpuint (row->indent, ==, 2);

  /* Collapsing the GPU group hides its rows and shrinks the content. */
  height = ks_timeline_layout_get_height (layout);
  ks_timeline_layout_set_expanded (layout, 0, FALSE);
  g_assert_cmpint (ks_timeline_layout_get_row (layout, stream_row)->y, ==, -1);
  g_assert_cmpint (ks_timeline_layout_get_height (layout), <, height);
  g_assert_cmpuint (ks_timeline_layout_row_at_y (layout, KS_GROUP_HEIGHT + 1), !=, stream_row);
  ks_timeline_layout_set_expanded (layout, 0, TRUE);
  g_assert_cmpint (ks_timeline_layout_get_height (layout), ==, height);
  g_assert_cmpuint (ks_timeline_layout_row_at_y (layout, KS_GROUP_HEIGHT + 1), ==, stream_row);
}

/* CUPTI puts device-wide synchronization on stream -1: its row says so. */
static void
test_device_sync_row (void)
{
  KsTraceBuilder *b = ks_trace_builder_new (KS_FORMAT_NSYS_SQLITE);
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsTimelineLayout) layout = NULL;
  guint32 t_sync = ks_trace_builder_get_stream_track (b, 0, -1);
  guint32 t_s7 = ks_trace_builder_get_stream_track (b, 0, 7);
  guint32 n = ks_trace_builder_intern (b, "x");

  ks_trace_builder_add_slice (b, t_sync, 0, 100, KS_SLICE_SYNC, n, 0, 0, 0, 0, NULL);
  ks_trace_builder_add_slice (b, t_s7, 0, 100, KS_SLICE_KERNEL, n, 0, 0, 0, 0, NULL);
  trace = ks_trace_builder_finish (b, NULL, &error);
  g_assert_no_error (error);

  layout = ks_timeline_layout_new (trace);
  g_assert_cmpstr (ks_timeline_layout_get_row (layout, ks_timeline_layout_find_track_row (layout, t_sync))->label,
                   ==, "device-wide synchronization");
  g_assert_cmpstr (ks_timeline_layout_get_row (layout, ks_timeline_layout_find_track_row (layout, t_s7))->label,
                   ==, "stream 7");
}

/* The row model on a trace with every kind of track. */
static void
test_rows_all_kinds (void)
{
  KsTraceBuilder *b = ks_trace_builder_new (KS_FORMAT_KSCOPE);
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsTimelineLayout) layout = NULL;
  guint32 p = ks_trace_builder_get_process (b, 42);
  guint32 th1 = ks_trace_builder_get_thread (b, p, 42);
  guint32 th2 = ks_trace_builder_get_thread (b, p, 43);
  guint32 t_th1 = ks_trace_builder_get_thread_track (b, th1);
  guint32 t_th2 = ks_trace_builder_get_thread_track (b, th2);
  guint32 t_nvtx = ks_trace_builder_get_nvtx_track (b, th1);
  guint32 t_s7 = ks_trace_builder_get_stream_track (b, 0, 7);
  guint32 t_s13 = ks_trace_builder_get_stream_track (b, 0, 13);
  guint32 t_ann = ks_trace_builder_get_gpu_annotation_track (b, 0, 7);
  guint32 t_async = ks_trace_builder_get_async_track (b, p, "requests");
  guint32 util = ks_trace_builder_get_counter (b, "GPU utilization", "%", 0, KS_NO_INDEX);
  guint32 mem = ks_trace_builder_get_counter (b, "allocated", "bytes", -1, p);
  guint32 n = ks_trace_builder_intern (b, "x");
  const char *expected[] = {
    "GPU 0", "GPU utilization (%)", "stream 7", "annotations, stream 7", "stream 13",
    "process 42", "thread 42", "NVTX", "thread 43", "requests", "allocated (bytes)",
  };
  const guint16 indents[] = { 0, 1, 1, 2, 1, 0, 1, 2, 1, 1, 1 };

  ks_trace_builder_set_thread_info (b, th1, NULL, NULL, 0);
  ks_trace_builder_set_thread_info (b, th2, NULL, NULL, 1);
  ks_trace_builder_add_slice (b, t_th1, 0, 100, KS_SLICE_CPU_OP, n, 0, 0, 0, 0, NULL);
  ks_trace_builder_add_slice (b, t_th1, 10, 50, KS_SLICE_CPU_OP, n, 0, 0, 0, 0, NULL);
  ks_trace_builder_add_slice (b, t_th2, 0, 100, KS_SLICE_CPU_OP, n, 0, 0, 0, 0, NULL);
  ks_trace_builder_add_slice (b, t_nvtx, 0, 100, KS_SLICE_NVTX, n, 0, 0, 0, 0, NULL);
  ks_trace_builder_add_slice (b, t_s7, 0, 100, KS_SLICE_KERNEL, n, 0, 0, 0, 0, NULL);
  ks_trace_builder_add_slice (b, t_s13, 0, 100, KS_SLICE_MEMCPY, n, 0, 0, 0, 0, NULL);
  ks_trace_builder_add_slice (b, t_ann, 0, 100, KS_SLICE_GPU_ANNOTATION, n, 0, 0, 0, 0, NULL);
  ks_trace_builder_add_slice (b, t_async, 0, 100, KS_SLICE_ASYNC, n, 0, 0, 0, 0, NULL);
  ks_trace_builder_add_counter_sample (b, util, 0, 50);
  ks_trace_builder_add_counter_sample (b, mem, 0, 1024);
  trace = ks_trace_builder_finish (b, NULL, &error);
  g_assert_no_error (error);

  layout = ks_timeline_layout_new (trace);
  g_assert_cmpuint (ks_timeline_layout_get_n_rows (layout), ==, G_N_ELEMENTS (expected));
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    {
      const KsRow *row = ks_timeline_layout_get_row (layout, i);

      g_assert_cmpstr (row->label, ==, expected[i]);
      g_assert_cmpuint (row->indent, ==, indents[i]);
    }

  /* Thread 42 has two nesting levels, so two lanes. */
  g_assert_cmpuint (ks_timeline_layout_get_row (layout, 6)->n_lanes, ==, 2);
  g_assert_cmpint (ks_timeline_layout_get_row (layout, 6)->height, ==, 2 * KS_LANE_HEIGHT + 2 * KS_ROW_PADDING);
  g_assert_cmpint (ks_timeline_layout_get_row (layout, 1)->kind, ==, KS_ROW_COUNTER);
  g_assert_cmpuint (ks_timeline_layout_find_track_row (layout, t_nvtx), ==, 7);
  g_assert_cmpuint (ks_timeline_layout_find_counter_row (layout, mem), ==, 10);

  /* Copies are drawn narrower than kernels, in the copy colour. */
  {
    KsTimeView view = { 0, 0.1, 1000 };
    KsPrims prims;
    KsPrimRect kernel, copy;

    ks_prims_init (&prims);
    ks_timeline_layout_build_prims (layout, 2, &view, ks_theme_get (FALSE), NULL, &prims);
    kernel = g_array_index (prims.rects, KsPrimRect, 0);
    ks_prims_reset (&prims);
    ks_timeline_layout_build_prims (layout, 4, &view, ks_theme_get (FALSE), NULL, &prims);
    copy = g_array_index (prims.rects, KsPrimRect, 0);
    g_assert_cmpfloat (copy.h, <, kernel.h);
    g_assert_cmphex (copy.color, ==, ks_palette_copy_color (KS_SLICE_MEMCPY, 0, FALSE));
    g_assert_cmphex (kernel.color, ==, ks_palette_name_color ("x", KS_SLICE_KERNEL, FALSE));
    ks_prims_clear (&prims);
  }
}

static guint32
find_slice (KsTrace    *trace,
            const char *name,
            guint32    *track_out)
{
  guint32 id = ks_trace_lookup_string (trace, name);
  guint32 best = KS_NO_INDEX;
  gint64 best_dur = -1;

  g_assert_cmpuint (id, !=, 0);
  for (guint32 t = 0; t < trace->n_tracks; t++)
    for (guint32 i = 0; i < trace->tracks[t].n_slices; i++)
      if (trace->tracks[t].name_id[i] == id &&
          trace->tracks[t].end[i] - trace->tracks[t].start[i] > best_dur)
        {
          best_dur = trace->tracks[t].end[i] - trace->tracks[t].start[i];
          best = i;
          *track_out = t;
        }
  g_assert_cmpuint (best, !=, KS_NO_INDEX);
  return best;
}

static void
test_png (void)
{
  g_autoptr(KsTrace) trace = load_fixture ("loader_bound.pt.trace.json.gz");
  g_autoptr(KsTimelineLayout) layout = ks_timeline_layout_new (trace);
  g_autofree char *path = NULL;
  g_autoptr(GError) error = NULL;
  cairo_surface_t *surface;
  const KsTheme *theme = ks_theme_get (FALSE);
  const KsTrack *track;
  const KsRow *row;
  KsRenderOptions options;
  KsTimeView view;
  guint32 t = 0, s;
  guint r, ruler_dark = 0;
  int fd, x, y;
  double mid;

  fd = g_file_open_tmp ("ks-render-XXXXXX.png", &path, &error);
  g_assert_no_error (error);
  close (fd);

  /* Centre the longest kernel in a 2 ms window. */
  s = find_slice (trace, LB_KERNEL_NAME, &t);
  track = &trace->tracks[t];
  g_assert_cmpint (track->end[s] - track->start[s], >=, 246000);
  g_assert_cmpint (track->end[s] - track->start[s], <=, 246100);
  mid = (track->start[s] + track->end[s]) / 2.0;

  ks_render_options_init (&options, trace, 1200, 500);
  options.t0 = mid - 1e6;
  options.t1 = mid + 1e6;
  g_assert_true (ks_render_png (layout, &options, path, &error));
  g_assert_no_error (error);

  surface = cairo_image_surface_create_from_png (path);
  g_assert_cmpint (cairo_surface_status (surface), ==, CAIRO_STATUS_SUCCESS);
  g_assert_cmpint (cairo_image_surface_get_width (surface), ==, 1200);
  g_assert_cmpint (cairo_image_surface_get_height (surface), ==, 500);

  /* The kernel's colour in the middle of its lane on the stream row. */
  ks_render_options_view (&options, &view);
  r = ks_timeline_layout_find_track_row (layout, t);
  row = ks_timeline_layout_get_row (layout, r);
  x = options.header_width + (int)((mid - view.t0) / view.ns_per_px);
  y = options.ruler_height + row->y + ks_timeline_layout_lane_y (track->depth[s]) + 3;
  g_assert_cmphex (pixel_at (surface, x, y), ==,
                   ks_timeline_layout_slice_color (layout, track, s, FALSE));
  /* 246 µs in 2 ms over 980 px is ~120 px wide: 40 px left of the centre
   * is still the kernel. */
  g_assert_cmphex (pixel_at (surface, x - 40, y), ==,
                   ks_timeline_layout_slice_color (layout, track, s, FALSE));

  /* The GPU group header and its label area. */
  g_assert_cmphex (pixel_at (surface, options.width - 5, options.ruler_height + 3), ==, theme->group_background);

  /* The ruler has tick labels: dark text pixels in its time area. */
  for (int yy = 2; yy < options.ruler_height - 4; yy++)
    for (int xx = options.header_width + 2; xx < options.width; xx++)
      {
        guint32 p = pixel_at (surface, xx, yy);

        if (((p >> 24) & 0xff) < 0x80 && ((p >> 16) & 0xff) < 0x80)
          ruler_dark++;
      }
  g_assert_cmpuint (ruler_dark, >, 100);

  /* The whole trace: the stream lane holds kernel colours somewhere. */
  ks_render_options_init (&options, trace, 1200, 500);
  g_assert_true (ks_render_png (layout, &options, path, &error));
  cairo_surface_destroy (surface);
  surface = cairo_image_surface_create_from_png (path);
  {
    guint coloured = 0;

    y = options.ruler_height + row->y + ks_timeline_layout_lane_y (0) + 8;
    /* Count saturated pixels only: grid lines and backgrounds are grey. */
    for (int xx = options.header_width; xx < options.width; xx++)
      {
        guint32 p = pixel_at (surface, xx, y);
        int pr = (p >> 24) & 0xff, pg = (p >> 16) & 0xff, pb = (p >> 8) & 0xff;

        if (ABS (pr - pg) > 24 || ABS (pg - pb) > 24 || ABS (pr - pb) > 24)
          coloured++;
      }
    g_assert_cmpuint (coloured, >, 10);
    g_assert_cmpuint (coloured, <, 980);
  }

  cairo_surface_destroy (surface);
  g_unlink (path);
}

/* The Python samples row under its thread draws its frames flame-style:
 * each frame's colour in its own lane over its own time, and nothing in
 * a lane where no frame was that deep. */
static void
test_png_samples (void)
{
  g_autoptr(KsTrace) trace = ks_test_sampled_trace ();
  g_autoptr(KsTimelineLayout) layout = ks_timeline_layout_new (trace);
  g_autofree char *path = NULL;
  g_autoptr(GError) error = NULL;
  cairo_surface_t *surface;
  const KsTrack *track;
  const KsRow *row;
  KsRenderOptions options;
  KsTimeView view;
  guint32 t = 0, decode, step, module;
  int fd, row_top;

  fd = g_file_open_tmp ("ks-render-XXXXXX.png", &path, &error);
  g_assert_no_error (error);
  close (fd);

  decode = ks_test_find_sample_slice (trace, "decode_batch", &t);
  step = ks_test_find_sample_slice (trace, "step", &t);
  module = ks_test_find_sample_slice (trace, "<module>", &t);
  track = &trace->tracks[t];
  row = ks_timeline_layout_get_row (layout, ks_timeline_layout_find_track_row (layout, t));
  g_assert_cmpint (row->y, >=, 0);
  g_assert_cmpuint (row->n_lanes, ==, 4);

  ks_render_options_init (&options, trace, 1200, 500);
  g_assert_true (ks_render_png (layout, &options, path, &error));
  g_assert_no_error (error);
  surface = cairo_image_surface_create_from_png (path);
  g_assert_cmpint (cairo_surface_status (surface), ==, CAIRO_STATUS_SUCCESS);
  ks_render_options_view (&options, &view);
  row_top = options.ruler_height + row->y;

  /* each slice's colour across the middle half of it, in its lane (but
   * where a grid line crosses) */
  {
    const guint32 slices[] = { decode, step, module };

    for (guint i = 0; i < G_N_ELEMENTS (slices); i++)
      {
        guint32 s = slices[i];
        double quarter = (track->end[s] - track->start[s]) / 4.0;
        int x0 = options.header_width + (int)((track->start[s] + quarter - view.t0) / view.ns_per_px);
        int x1 = options.header_width + (int)((track->end[s] - quarter - view.t0) / view.ns_per_px);
        int y = row_top + ks_timeline_layout_lane_y (track->depth[s]) + 3;
        KsColor want = ks_timeline_layout_slice_color (layout, track, s, FALSE);
        int same = 0;

        g_assert_cmpint (x1 - x0, >, 100);
        for (int x = x0; x < x1; x++)
          same += pixel_at (surface, x, y) == want;
        g_assert_cmpint (same, >, (x1 - x0) * 9 / 10);
      }
  }
  /* no frame three deep under step: decode_batch's lane is empty there */
  {
    double quarter = (track->end[step] - track->start[step]) / 4.0;
    int x0 = options.header_width + (int)((track->start[step] + quarter - view.t0) / view.ns_per_px);
    int x1 = options.header_width + (int)((track->end[step] - quarter - view.t0) / view.ns_per_px);
    int y = row_top + ks_timeline_layout_lane_y (track->depth[decode]) + 3;
    KsColor decode_color = ks_timeline_layout_slice_color (layout, track, decode, FALSE);
    KsColor step_color = ks_timeline_layout_slice_color (layout, track, step, FALSE);

    for (int x = x0; x < x1; x++)
      {
        g_assert_cmphex (pixel_at (surface, x, y), !=, decode_color);
        g_assert_cmphex (pixel_at (surface, x, y), !=, step_color);
      }
  }

  cairo_surface_destroy (surface);
  g_unlink (path);
}

/* Pixels of a lane that hold ink: any channel far from the background
 * (a folded block's faint tint under a grid line is not ink). */
static int
lane_ink (cairo_surface_t *surface,
          int              x,
          int              y0,
          int              h,
          KsColor          background)
{
  int ink = 0;

  for (int y = y0; y < y0 + h; y++)
    {
      guint32 p = pixel_at (surface, x, y);
      int d = 0;

      for (int sh = 8; sh <= 24; sh += 8)
        d = MAX (d, ABS ((int)((p >> sh) & 0xff) - (int)((background >> sh) & 0xff)));
      ink += d > 72;
    }
  return ink;
}

/* A folded block is drawn as busy as it is, per pixel column (Nsight's
 * density): a stream busy 10 % of the time is a low bar, not a solid
 * one, and a stream busy all the time fills its lane. */
static void
test_png_density (void)
{
  KsTraceBuilder *b = ks_trace_builder_new (KS_FORMAT_NSYS_SQLITE);
  guint32 t_low = ks_trace_builder_get_stream_track (b, 0, 7);
  guint32 t_full = ks_trace_builder_get_stream_track (b, 0, 8);
  guint32 n = ks_trace_builder_intern (b, "k");
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsTimelineLayout) layout = NULL;
  g_autofree char *path = NULL;
  const KsTheme *theme = ks_theme_get (FALSE);
  cairo_surface_t *surface;
  KsRenderOptions options;
  KsTimeView view;
  int fd, low_y, full_y, lane_h = KS_LANE_HEIGHT - 1;
  double ink_low = 0, ink_full = 0;
  int from, to;

  /* 10 ms: stream 7 runs 1 µs kernels every 10 µs, stream 8 back to back. */
  for (int i = 0; i < 1000; i++)
    ks_trace_builder_add_slice (b, t_low, i * 10000, i * 10000 + 1000, KS_SLICE_KERNEL, n, 0, 0, 0, 0, NULL);
  for (int i = 0; i < 10000; i++)
    ks_trace_builder_add_slice (b, t_full, i * 1000, i * 1000 + 1000, KS_SLICE_KERNEL, n, 0, 0, 0, 0, NULL);
  trace = ks_trace_builder_finish (b, NULL, &error);
  g_assert_no_error (error);
  layout = ks_timeline_layout_new (trace);

  fd = g_file_open_tmp ("ks-render-XXXXXX.png", &path, &error);
  g_assert_no_error (error);
  close (fd);

  /* The whole 10 ms over 980 px: 10.2 µs a column, so both fold. */
  ks_render_options_init (&options, trace, 1200, 300);
  g_assert_true (ks_render_png (layout, &options, path, &error));
  g_assert_no_error (error);
  surface = cairo_image_surface_create_from_png (path);
  g_assert_cmpint (cairo_surface_status (surface), ==, CAIRO_STATUS_SUCCESS);
  ks_render_options_view (&options, &view);

  low_y = options.ruler_height + ks_timeline_layout_get_row (layout, ks_timeline_layout_find_track_row (layout, t_low))->y +
          ks_timeline_layout_lane_y (0);
  full_y = options.ruler_height + ks_timeline_layout_get_row (layout, ks_timeline_layout_find_track_row (layout, t_full))->y +
           ks_timeline_layout_lane_y (0);

  /* Away from the ends and the grid lines' columns, over 800 columns. */
  from = options.header_width + 50;
  to = options.header_width + 850;
  for (int x = from; x < to; x++)
    {
      ink_low += lane_ink (surface, x, low_y, lane_h, theme->background);
      ink_full += lane_ink (surface, x, full_y, lane_h, theme->background);
    }
  ink_low /= (double)lane_h * (to - from);
  ink_full /= (double)lane_h * (to - from);
  g_assert_cmpfloat (ink_low, >, 0.05);
  g_assert_cmpfloat (ink_low, <, 0.2);
  g_assert_cmpfloat (ink_full, >, 0.9);

  /* No column of the 10 % stream is drawn solid. */
  for (int x = from; x < to; x++)
    if (lane_ink (surface, x, low_y, lane_h, theme->background) >= lane_h / 2)
      g_error ("column %d of the 10 %% stream has %d of %d pixels inked", x, lane_ink (surface, x, low_y, lane_h, theme->background), lane_h);

  cairo_surface_destroy (surface);
  g_unlink (path);
}

/* Rows are named for what they hold and processes come in the order of
 * their GPU use: Kineto's overhead process (pid -1, thread 0) and its
 * "Spans" process say what they are, an Nsight export's thread 0 holds
 * what had no thread, and the shells that launched the job (a pyenv
 * shim's bash) are folded into one closed group at the end. */
static void
test_rows_named (void)
{
  KsTraceBuilder *b = ks_trace_builder_new (KS_FORMAT_KINETO_JSON);
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsTimelineLayout) layout = NULL;
  guint32 overhead = ks_trace_builder_get_process (b, -1);
  guint32 spans = ks_trace_builder_get_process (b, 1000);
  guint32 shim1 = ks_trace_builder_get_process (b, 10);
  guint32 shim2 = ks_trace_builder_get_process (b, 11);
  guint32 cpu_only = ks_trace_builder_get_process (b, 20);
  guint32 trainer = ks_trace_builder_get_process (b, 30);
  guint32 t_overhead = ks_trace_builder_get_thread_track (b, ks_trace_builder_get_thread (b, overhead, 0));
  guint32 spans_th = ks_trace_builder_get_thread (b, spans, 5000);
  guint32 t_spans = ks_trace_builder_get_thread_track (b, spans_th);
  guint32 t_shim1 = ks_trace_builder_get_thread_track (b, ks_trace_builder_get_thread (b, shim1, 10));
  guint32 t_shim2 = ks_trace_builder_get_thread_track (b, ks_trace_builder_get_thread (b, shim2, 11));
  guint32 t_cpu = ks_trace_builder_get_thread_track (b, ks_trace_builder_get_thread (b, cpu_only, 20));
  guint32 t_trainer = ks_trace_builder_get_thread_track (b, ks_trace_builder_get_thread (b, trainer, 30));
  guint32 t_stream = ks_trace_builder_get_stream_track (b, 0, 7);
  guint32 n = ks_trace_builder_intern (b, "x");
  const char *expected[] = {
    "GPU 0", "stream 7", "queue length, stream 7",
    "python3 (pid 30)", "thread 30",
    "python3 (pid 20)", "thread 20",
    "Profiler overhead", "profiler overhead",
    "Profiler spans", "profiling windows (PyTorch Profiler)",
    "Profiler spans", "profiling windows (PyTorch Profiler)",
    "Launchers (2 processes)", "bash (pid 10)", "bash (pid 11)",
  };
  /* Kineto of 2021 calls its span process "Traces" */
  guint32 traces = ks_trace_builder_get_process (b, 2000);
  guint32 traces_th = ks_trace_builder_get_thread (b, traces, 6000);

  ks_trace_builder_set_process_info (b, spans, NULL, NULL, "Spans", 0);
  ks_trace_builder_set_thread_info (b, spans_th, NULL, "PyTorch Profiler", 0);
  ks_trace_builder_set_process_info (b, traces, NULL, NULL, "Traces", 0);
  ks_trace_builder_set_thread_info (b, traces_th, NULL, "PyTorch Profiler", 0);
  ks_trace_builder_add_slice (b, ks_trace_builder_get_thread_track (b, traces_th), 0, 1000, KS_SLICE_GENERIC, n, 0, 0, 0, 0, NULL);
  ks_trace_builder_set_process_info (b, shim1, "bash", NULL, NULL, 0);
  ks_trace_builder_set_process_info (b, shim2, "bash", NULL, NULL, 0);
  ks_trace_builder_set_process_info (b, cpu_only, "python3", NULL, NULL, 0);
  ks_trace_builder_set_process_info (b, trainer, "python3", NULL, NULL, 0);
  ks_trace_builder_add_slice (b, t_overhead, 0, 10, KS_SLICE_GENERIC, n, 0, 0, 0, 0, NULL);
  ks_trace_builder_add_slice (b, t_spans, 0, 1000, KS_SLICE_GENERIC, n, 0, 0, 0, 0, NULL);
  ks_trace_builder_add_slice (b, t_shim1, 0, 1000, KS_SLICE_OSRT, n, 0, 0, 0, 0, NULL);
  ks_trace_builder_add_slice (b, t_shim2, 0, 1000, KS_SLICE_OSRT, n, 0, 0, 0, 0, NULL);
  ks_trace_builder_add_slice (b, t_cpu, 0, 1000, KS_SLICE_CPU_OP, n, 0, 0, 0, 0, NULL);
  ks_trace_builder_add_slice (b, t_trainer, 0, 10, KS_SLICE_CUDA_RUNTIME, n, 0, 1, 0, 0, NULL);
  ks_trace_builder_add_slice (b, t_stream, 20, 500, KS_SLICE_KERNEL, n, 0, 1, 0, 0, NULL);
  /* launched while the first runs: the stream's queue holds two */
  ks_trace_builder_add_slice (b, t_trainer, 12, 15, KS_SLICE_CUDA_RUNTIME, n, 0, 2, 0, 0, NULL);
  ks_trace_builder_add_slice (b, t_stream, 500, 900, KS_SLICE_KERNEL, n, 0, 2, 0, 0, NULL);
  trace = ks_trace_builder_finish (b, NULL, &error);
  g_assert_no_error (error);

  layout = ks_timeline_layout_new (trace);
  for (guint i = 0; i < MIN (G_N_ELEMENTS (expected), ks_timeline_layout_get_n_rows (layout)); i++)
    g_assert_cmpstr (ks_timeline_layout_get_row (layout, i)->label, ==, expected[i]);
  g_assert_cmpuint (ks_timeline_layout_get_n_rows (layout), ==, G_N_ELEMENTS (expected));

  /* The launchers' group is closed: its rows take no room. */
  g_assert_false (ks_timeline_layout_get_row (layout, 13)->expanded);
  g_assert_cmpint (ks_timeline_layout_get_row (layout, 14)->y, ==, -1);
  g_assert_cmpint (ks_timeline_layout_get_row (layout, 15)->group, ==, 13);
}

/* loader_bound's caching allocator held up to 1,345,078,784 bytes it had
 * not handed out (peer-reference.py, "peak_unused": the largest reserved
 * minus allocated of the GPU's memory events): a row under the GPU's
 * memory row, in bytes; host memory has no such row. */
static void
test_unused_memory_row (void)
{
  g_autoptr(KsTrace) trace = load_fixture ("loader_bound.pt.trace.json.gz");
  KsTimelineLayout *layout = ks_timeline_layout_new (trace);
  guint found = 0;

  for (guint r = 1; r < ks_timeline_layout_get_n_rows (layout); r++)
    {
      const KsRow *row = ks_timeline_layout_get_row (layout, r);
      const KsCounter *c;
      double max = 0;

      if (!g_str_has_prefix (row->label, "Reserved, not allocated"))
        continue;
      found++;
      g_assert_true (g_str_has_prefix (row->label, "Reserved, not allocated, on GPU 0, peak "));
      g_assert_true (g_str_has_prefix (ks_timeline_layout_get_row (layout, r - 1)->label, "Allocated on GPU 0"));
      g_assert_true (ks_timeline_layout_counter_is_bytes (layout, row->index));
      c = ks_timeline_layout_get_counter (layout, row->index);
      for (guint32 i = 0; i < c->n_samples; i++)
        {
          g_assert_cmpfloat (c->value[i], >=, 0);
          max = MAX (max, c->value[i]);
        }
      g_assert_cmpfloat (max, ==, 1345078784.0);
    }
  g_assert_cmpuint (found, ==, 1);
  ks_timeline_layout_free (layout);
}

/* An Nsight export's thread 0 holds the process's calls that had no thread. */
static void
test_rows_nsys_thread0 (void)
{
  KsTraceBuilder *b = ks_trace_builder_new (KS_FORMAT_NSYS_SQLITE);
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsTimelineLayout) layout = NULL;
  guint32 p = ks_trace_builder_get_process (b, 1701896);
  guint32 t0 = ks_trace_builder_get_thread_track (b, ks_trace_builder_get_thread (b, p, 0));
  guint32 n = ks_trace_builder_intern (b, "x");

  ks_trace_builder_set_process_info (b, p, "cuda-cloverleaf", NULL, NULL, 0);
  ks_trace_builder_add_slice (b, t0, 0, 10, KS_SLICE_OSRT, n, 0, 0, 0, 0, NULL);
  trace = ks_trace_builder_finish (b, NULL, &error);
  g_assert_no_error (error);

  layout = ks_timeline_layout_new (trace);
  g_assert_cmpuint (ks_timeline_layout_get_n_rows (layout), ==, 2);
  g_assert_cmpstr (ks_timeline_layout_get_row (layout, 1)->label, ==, "calls without a thread");
}

/* A counter row says its scale: the top of the row is its maximum, in
 * its unit (bytes for memory rows, in binary units). */
static void
test_counter_scale (void)
{
  KsTraceBuilder *b = ks_trace_builder_new (KS_FORMAT_KINETO_JSON);
  guint32 util = ks_trace_builder_get_counter (b, "GPU utilization", "%", 0, KS_NO_INDEX);
  guint32 power = ks_trace_builder_get_counter (b, "power", "W", 0, KS_NO_INDEX);
  guint32 p = ks_trace_builder_get_process (b, 7);
  guint32 th = ks_trace_builder_get_thread (b, p, 7);
  const KsMemoryEvent ev = { 0, 0x10, 3145728, 3145728, 4194304, th, 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsTimelineLayout) layout = NULL;
  KsTimeView view = { 0, 1, 300 };
  KsPrims prims;

  ks_trace_builder_add_slice (b, ks_trace_builder_get_thread_track (b, th), 0, 300, KS_SLICE_CPU_OP,
                              ks_trace_builder_intern (b, "x"), 0, 0, 0, 0, NULL);
  ks_trace_builder_add_counter_sample (b, util, 0, 40);
  ks_trace_builder_add_counter_sample (b, util, 100, 87);
  ks_trace_builder_add_counter_sample (b, power, 0, 312.5);
  ks_trace_builder_add_memory_event (b, &ev);
  trace = ks_trace_builder_finish (b, NULL, &error);
  g_assert_no_error (error);
  layout = ks_timeline_layout_new (trace);

  ks_prims_init (&prims);
  ks_timeline_layout_build_prims (layout, ks_timeline_layout_find_counter_row (layout, util), &view,
                                  ks_theme_get (FALSE), NULL, &prims);
  g_assert_true (has_text (&prims, "max 87 %"));
  ks_prims_reset (&prims);
  ks_timeline_layout_build_prims (layout, ks_timeline_layout_find_counter_row (layout, power), &view,
                                  ks_theme_get (FALSE), NULL, &prims);
  g_assert_true (has_text (&prims, "max 312.5 W"));
  ks_prims_reset (&prims);
  for (guint r = 0; r < ks_timeline_layout_get_n_rows (layout); r++)
    if (g_str_has_prefix (ks_timeline_layout_get_row (layout, r)->label, "Allocated on GPU 0"))
      ks_timeline_layout_build_prims (layout, r, &view, ks_theme_get (FALSE), NULL, &prims);
  g_assert_true (has_text (&prims, "max 3.0\u00a0MiB"));
  ks_prims_clear (&prims);
}

/* Pixels in [x0, x1) × [y0, y1) that are clearly blue: the counter's
 * fill and line, not text, grid or backgrounds. */
static guint
count_blue (cairo_surface_t *surface,
            int              x0,
            int              x1,
            int              y0,
            int              y1)
{
  guint n = 0;

  for (int y = y0; y < y1; y++)
    for (int x = x0; x < x1; x++)
      {
        guint32 p = pixel_at (surface, x, y);

        if ((int) ((p >> 8) & 0xff) - (int) ((p >> 24) & 0xff) > 30)
          n++;
      }
  return n;
}

/* The scale drawn over a counter at its maximum all along: the bars
 * reach the top of the row, and the label keeps a backdrop of its own
 * instead of being crossed out by them. */
static void
test_counter_label_backdrop (void)
{
  KsTraceBuilder *b = ks_trace_builder_new (KS_FORMAT_KINETO_JSON);
  guint32 util = ks_trace_builder_get_counter (b, "GPU utilization", "%", 0, KS_NO_INDEX);
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsTimelineLayout) layout = NULL;
  g_autofree char *path = NULL;
  cairo_surface_t *surface;
  const KsRow *row;
  KsRenderOptions options;
  int fd, top;

  ks_trace_builder_add_counter_sample (b, util, 0, 87);
  ks_trace_builder_add_counter_sample (b, util, 1000000, 87);
  trace = ks_trace_builder_finish (b, NULL, &error);
  g_assert_no_error (error);
  layout = ks_timeline_layout_new (trace);
  row = ks_timeline_layout_get_row (layout, ks_timeline_layout_find_counter_row (layout, util));

  fd = g_file_open_tmp ("ks-render-XXXXXX.png", &path, &error);
  g_assert_no_error (error);
  close (fd);
  ks_render_options_init (&options, trace, 800, 200);
  options.t0 = 0;
  options.t1 = 1000000;
  g_assert_true (ks_render_png (layout, &options, path, &error));
  g_assert_no_error (error);
  surface = cairo_image_surface_create_from_png (path);
  g_assert_cmpint (cairo_surface_status (surface), ==, CAIRO_STATUS_SUCCESS);

  /* The label's box (its first 30 px from 4 px in, the top 12 px of the
   * row) holds no bar; the same band further right is all bar. */
  top = options.ruler_height + (int) row->y + 2;
  g_assert_cmpuint (count_blue (surface, options.header_width + 4, options.header_width + 34, top, top + 9), ==, 0);
  g_assert_cmpuint (count_blue (surface, options.header_width + 400, options.header_width + 430, top, top + 9), >=, 30 * 9 * 9 / 10);

  cairo_surface_destroy (surface);
  g_unlink (path);
}

/* A counter of many samples read a block at a time gives the columns
 * it gives read sample by sample: at every zoom, with samples that are
 * not numbers among them. */
static void
test_lod_counter_blocks (void)
{
  const guint32 n = 100003;
  g_autofree gint64 *ts = g_new (gint64, n);
  g_autofree double *value = g_new (double, n);
  g_autofree float *blocks = NULL;
  KsCounter c = { 0 };
  GRand *rand = g_rand_new_with_seed (17);
  gint64 t = 1000;

  for (guint32 i = 0; i < n; i++)
    {
      t += g_rand_int_range (rand, 0, 40);
      ts[i] = t;
      value[i] = g_rand_int_range (rand, 0, 1000) == 0 ? NAN : g_rand_int_range (rand, -5, 1100);
    }
  c.n_samples = n;
  c.ts = ts;
  c.value = value;
  blocks = ks_lod_counter_blocks_new (&c);

  for (guint pass = 0; pass < 200; pass++)
    {
      KsTimeView view;
      float min1[700], max1[700], min2[700], max2[700];
      gboolean has1[700], has2[700];

      view.width = g_rand_int_range (rand, 1, 700);
      /* from the whole counter and more to a few samples a column */
      view.ns_per_px = pass == 0 ? (t + 2000.0) / view.width : g_rand_double_range (rand, 0.5, (double)t / view.width);
      view.t0 = pass == 0 ? -1000 : g_rand_double_range (rand, -1000, t);
      ks_lod_counter (&c, &view, min1, max1, has1);
      ks_lod_counter_summarized (&c, blocks, &view, min2, max2, has2);
      for (int col = 0; col < view.width; col++)
        {
          g_assert_cmpint (has1[col], ==, has2[col]);
          if (!has1[col])
            continue;
          g_assert_cmpfloat (min1[col], ==, min2[col]);
          g_assert_cmpfloat (max1[col], ==, max2[col]);
        }
    }
  g_rand_free (rand);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/render/lod-folding", test_lod_folding);
  g_test_add_func ("/render/folded-matches", test_folded_matches);
  g_test_add_func ("/render/lod-counter", test_lod_counter);
  g_test_add_func ("/render/memory-rows", test_memory_rows);
  g_test_add_func ("/render/empty-named-process", test_empty_named_process);
  g_test_add_func ("/render/rows", test_rows);
  g_test_add_func ("/render/rows-all-kinds", test_rows_all_kinds);
  g_test_add_func ("/render/device-sync-row", test_device_sync_row);
  g_test_add_func ("/render/png", test_png);
  g_test_add_func ("/render/counter-label-backdrop", test_counter_label_backdrop);
  g_test_add_func ("/render/png-samples", test_png_samples);
  g_test_add_func ("/render/png-density", test_png_density);
  g_test_add_func ("/render/rows-named", test_rows_named);
  g_test_add_func ("/render/unused-memory-row", test_unused_memory_row);
  g_test_add_func ("/render/rows-nsys-thread0", test_rows_nsys_thread0);
  g_test_add_func ("/render/counter-scale", test_counter_scale);
  g_test_add_func ("/render/lod-counter-blocks", test_lod_counter_blocks);

  return g_test_run ();
}
