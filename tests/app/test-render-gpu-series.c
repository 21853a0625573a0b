/* test-render-gpu-series.c: the GPU series rows: queue length, copy bandwidth
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gstdio.h>
#include <math.h>

#include "ks-gpu-series.h"
#include "ks-trace-builder.h"
#include "test-render-util.h"

/* Two ranks, each with its GPU 0 (two hosts' GPUs): each rank's copies
 * make its own bandwidth row, in its own GPU group; one copy of 1 MB in
 * 1 µs (1000 GB/s) on rank 0, one of 1 MB in 4 µs on rank 1. */
static void
test_bandwidth_rows_per_rank (void)
{
  KsTraceBuilder *b = ks_trace_builder_new (KS_FORMAT_KINETO_JSON);
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsTimelineLayout) layout = NULL;
  guint n_rows = 0;

  for (guint32 r = 0; r < 2; r++)
    {
      KsGpuInfo info = { 0 };
      guint32 t;

      ks_trace_builder_set_group (b, r);
      ks_trace_builder_get_rank (b, r)->rank = (gint32)r;
      /* a rank is a process's */
      ks_trace_builder_get_process (b, 100 + r);
      t = ks_trace_builder_get_stream_track (b, 0, 7);
      info.copy.bytes = 1000000;
      info.copy.copy_kind = KS_COPY_HTOD;
      ks_trace_builder_add_slice (b, t, 1000, 1000 + 1000 * (1 + 3 * r), KS_SLICE_MEMCPY,
                                  ks_trace_builder_intern (b, "Memcpy HtoD"), 0, 0, 0, 0, &info);
    }
  trace = ks_trace_builder_finish (b, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (trace->n_ranks, ==, 2);
  layout = ks_timeline_layout_new (trace);

  for (guint r = 0; r < ks_timeline_layout_get_n_rows (layout); r++)
    {
      const KsRow *row = ks_timeline_layout_get_row (layout, r);
      const KsRow *group = ks_timeline_layout_get_row (layout, row->group);

      if (g_strcmp0 (row->label, "HtoD copy bandwidth (GB/s)") != 0)
        continue;
      /* rank 0's row first, under "rank 0 · GPU 0" */
      g_assert_true (g_str_has_prefix (group->label, n_rows == 0 ? "rank 0 · GPU 0" : "rank 1 · GPU 0"));
      g_assert_cmpfloat (row->counter_max, ==, n_rows == 0 ? 1000 : 250);
      n_rows++;
    }
  g_assert_cmpuint (n_rows, ==, 2);
}

static guint
find_row_by_label (KsTimelineLayout *layout,
                   const char       *label)
{
  for (guint r = 0; r < ks_timeline_layout_get_n_rows (layout); r++)
    if (g_strcmp0 (ks_timeline_layout_get_row (layout, r)->label, label) == 0)
      return r;
  return KS_NO_INDEX;
}

/* A stream that never queued more than its running operation (a recorded
 * job's side streams: one memset each) gets no queue row; the Queues
 * page still lists it. */
static void
test_no_empty_queue_rows (void)
{
  KsTraceBuilder *b = ks_trace_builder_new (KS_FORMAT_KINETO_JSON);
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsTimelineLayout) layout = NULL;
  guint32 p = ks_trace_builder_get_process (b, 30);
  guint32 t = ks_trace_builder_get_thread_track (b, ks_trace_builder_get_thread (b, p, 30));
  guint32 s = ks_trace_builder_get_stream_track (b, 0, 16);
  guint32 n = ks_trace_builder_intern (b, "x");

  ks_trace_builder_add_slice (b, t, 0, 10, KS_SLICE_CUDA_RUNTIME, n, 0, 1, 0, 0, NULL);
  ks_trace_builder_add_slice (b, s, 20, 500, KS_SLICE_KERNEL, n, 0, 1, 0, 0, NULL);
  trace = ks_trace_builder_finish (b, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (ks_gpu_series_get (trace)->n_series, ==, 1);

  layout = ks_timeline_layout_new (trace);
  g_assert_cmpuint (find_row_by_label (layout, "stream 16"), !=, KS_NO_INDEX);
  g_assert_cmpuint (find_row_by_label (layout, "queue length, stream 16"), ==, KS_NO_INDEX);
}

/* Counted from the trace here, not with the series' code: the launch
 * (CPU start) and end of every kernel, copy and memset of @stream. */
static guint
independent_queue (KsTrace  *trace,
                   guint32   stream,
                   gint64  **ups,
                   gint64  **downs)
{
  guint n = 0;

  *ups = g_new (gint64, trace->n_flows + 1);
  *downs = g_new (gint64, trace->n_flows + 1);
  for (guint32 f = 0; f < trace->n_flows; f++)
    {
      const KsFlow *flow = &trace->flows[f];
      const KsTrack *to = &trace->tracks[flow->to_track];
      guint8 kind;

      if (flow->kind != KS_FLOW_LAUNCH || flow->to_track != stream)
        continue;
      kind = to->slice_kind[flow->to_slice];
      if (kind != KS_SLICE_KERNEL && kind != KS_SLICE_MEMCPY && kind != KS_SLICE_MEMSET)
        continue;
      (*ups)[n] = trace->tracks[flow->from_track].start[flow->from_slice];
      (*downs)[n] = MAX ((*ups)[n], to->end[flow->to_slice]);
      n++;
    }
  return n;
}

/* Counts the coloured pixels (the counter's line and area; grid lines
 * and backgrounds are grey) in the upper part of @row, above a zero
 * value's line, from picture column @x0 to @x1. */
static guint
count_raised (cairo_surface_t        *surface,
              const KsRenderOptions  *options,
              const KsRow            *row,
              int                     x0,
              int                     x1)
{
  guint n = 0;

  for (int y = options->ruler_height + row->y + 3; y < options->ruler_height + row->y + row->height - 8; y++)
    for (int x = x0; x < x1; x++)
      {
        guint32 p = pixel_at (surface, x, y);
        int pr = (p >> 24) & 0xff, pb = (p >> 8) & 0xff;

        n += ABS (pr - pb) > 24;
      }
  return n;
}

/* loader_bound: the queue length of stream 7 and the HtoD bandwidth of
 * GPU 0 are counter rows of the GPU, their values checked against the
 * trace at every sample, and the picture draws them where they are not
 * zero: the first launch is at 33 ms. */
static void
test_gpu_series_rows (void)
{
  g_autoptr(KsTrace) trace = load_fixture ("loader_bound.pt.trace.json.gz");
  g_autoptr(KsTimelineLayout) layout = ks_timeline_layout_new (trace);
  g_autofree gint64 *ups = NULL;
  g_autofree gint64 *downs = NULL;
  g_autofree char *path = NULL;
  g_autoptr(GError) error = NULL;
  const KsRow *stream_row, *queue, *bandwidth;
  const KsCounter *c;
  KsRenderOptions options;
  KsTimeView view;
  cairo_surface_t *surface;
  guint r_stream = KS_NO_INDEX, r_queue, r_bw, n_ops, max_len = 0;
  double max_gbps = 0;
  KsPrims prims;
  int fd, x_20ms;

  for (guint32 t = 0; t < trace->n_tracks; t++)
    if (trace->tracks[t].kind == KS_TRACK_STREAM && trace->tracks[t].stream == 7)
      r_stream = ks_timeline_layout_find_track_row (layout, t);
  g_assert_cmpuint (r_stream, !=, KS_NO_INDEX);
  stream_row = ks_timeline_layout_get_row (layout, r_stream);

  /* The queue row follows the stream and its annotation row. */
  r_queue = find_row_by_label (layout, "queue length, stream 7");
  g_assert_cmpuint (r_queue, ==, r_stream + 2);
  queue = ks_timeline_layout_get_row (layout, r_queue);
  g_assert_cmpint (queue->kind, ==, KS_ROW_COUNTER);
  g_assert_cmpuint (queue->group, ==, 0);
  g_assert_cmpuint (queue->indent, ==, 1);
  g_assert_false (ks_timeline_layout_counter_is_bytes (layout, queue->index));
  g_assert_cmpstr (ks_timeline_layout_get_counter_unit (layout, queue->index), ==, "");

  n_ops = independent_queue (trace, stream_row->index, &ups, &downs);
  g_assert_cmpuint (n_ops, ==, 216);
  c = ks_timeline_layout_get_counter (layout, queue->index);
  g_assert_cmpuint (c->n_samples, >, 0);
  for (guint32 i = 0; i < c->n_samples; i++)
    {
      guint len = 0;

      /* launched by then, and not yet done */
      for (guint k = 0; k < n_ops; k++)
        len += ups[k] <= c->ts[i] && downs[k] > c->ts[i];
      g_assert_cmpfloat (c->value[i], ==, len);
      g_assert_true (i == 0 || c->ts[i] > c->ts[i - 1]);
      max_len = MAX (max_len, len);
    }
  g_assert_cmpuint (max_len, ==, 9);
  g_assert_cmpfloat (queue->counter_max, ==, 9);
  g_assert_cmpfloat (c->value[c->n_samples - 1], ==, 0);

  /* The bandwidth row: under the GPU's rows, its one copy kind. */
  r_bw = find_row_by_label (layout, "HtoD copy bandwidth (GB/s)");
  g_assert_cmpuint (r_bw, !=, KS_NO_INDEX);
  g_assert_cmpuint (r_bw, >, r_queue);
  bandwidth = ks_timeline_layout_get_row (layout, r_bw);
  g_assert_cmpuint (bandwidth->group, ==, 0);
  g_assert_cmpstr (ks_timeline_layout_get_counter_unit (layout, bandwidth->index), ==, "GB/s");
  c = ks_timeline_layout_get_counter (layout, bandwidth->index);
  /* 8 copies of one stream, one after another: two samples each */
  g_assert_cmpuint (c->n_samples, ==, 16);
  for (guint32 i = 0; i < c->n_samples; i++)
    {
      const KsTrack *track = &trace->tracks[stream_row->index];
      double sum = 0;

      for (guint32 s = 0; s < track->n_slices; s++)
        if (track->slice_kind[s] == KS_SLICE_MEMCPY && track->start[s] <= c->ts[i] && track->end[s] > c->ts[i])
          sum += (double)track->gpu[s].copy.bytes / (track->end[s] - track->start[s]);
      g_assert_cmpfloat_with_epsilon (c->value[i], sum, 1e-9);
      max_gbps = MAX (max_gbps, sum);
    }
  /* 3.4 MiB in 307 µs */
  g_assert_cmpfloat_with_epsilon (max_gbps, 11.53, 0.01);
  g_assert_cmpfloat (bandwidth->counter_max, ==, max_gbps);

  /* The scale says the unit, as the other counter rows do. */
  view.t0 = 0;
  view.ns_per_px = trace->duration_ns / 1000.0;
  view.width = 1000;
  ks_prims_init (&prims);
  ks_timeline_layout_build_prims (layout, r_queue, &view, ks_theme_get (FALSE), NULL, &prims);
  g_assert_true (has_text (&prims, "max 9"));
  ks_prims_reset (&prims);
  ks_timeline_layout_build_prims (layout, r_bw, &view, ks_theme_get (FALSE), NULL, &prims);
  g_assert_true (has_text (&prims, "max 11.53 GB/s"));
  ks_prims_clear (&prims);

  /* The picture of the whole trace */
  fd = g_file_open_tmp ("ks-render-XXXXXX.png", &path, &error);
  g_assert_no_error (error);
  close (fd);
  ks_render_options_init (&options, trace, 1200, KS_RULER_HEIGHT + ks_timeline_layout_get_height (layout));
  g_assert_true (ks_render_png (layout, &options, path, &error));
  g_assert_no_error (error);
  surface = cairo_image_surface_create_from_png (path);
  g_assert_cmpint (cairo_surface_status (surface), ==, CAIRO_STATUS_SUCCESS);
  ks_render_options_view (&options, &view);
  x_20ms = options.header_width + (int)((20e6 - view.t0) / view.ns_per_px);
  g_assert_cmpuint (count_raised (surface, &options, queue, options.header_width, options.width), >, 20);
  g_assert_cmpuint (count_raised (surface, &options, bandwidth, options.header_width, options.width), >, 20);
  /* nothing launched and nothing copied in the first 20 ms */
  g_assert_cmpuint (count_raised (surface, &options, queue, options.header_width, x_20ms), ==, 0);
  g_assert_cmpuint (count_raised (surface, &options, bandwidth, options.header_width, x_20ms), ==, 0);
  cairo_surface_destroy (surface);
  g_unlink (path);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/render/no-empty-queue-rows", test_no_empty_queue_rows);
  g_test_add_func ("/render/gpu-series-rows", test_gpu_series_rows);
  g_test_add_func ("/render/bandwidth-rows-per-rank", test_bandwidth_rows_per_rank);

  return g_test_run ();
}
