/* test-overview.c: the whole-trace strip above the timeline draws the
 * analysis' GPU busy, the union of the busy intervals, not the sum of the
 * streams
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <adwaita.h>
#include <glib/gstdio.h>
#include <math.h>

#include "ks-analysis.h"
#include "ks-kscope-writer.h"
#include "ks-overview.h"
#include "ks-render-cairo.h"
#include "ks-test-gtk.h"
#include "ks-trace-builder.h"
#include "ks-window.h"

#define WAIT_FOR(cond) KS_TEST_WAIT_FOR (cond, 20000)

#define BASE     G_GINT64_CONSTANT (1000000000)
#define N_KERNELS 1000
#define PERIOD   G_GINT64_CONSTANT (10000)   /* a kernel every 10 µs */
#define KERNEL   G_GINT64_CONSTANT (1000)    /* of 1 µs */
/* A copy in the gap after kernel 500, on the second stream only. */
#define COPY_START (500 * PERIOD + 4000)
#define COPY_END   (500 * PERIOD + 7000)

/* GPU 0 with two streams running the same 1000 kernels at the same time,
 * and one copy: busy (kernels, the union) is 1 µs in every 10 µs, while
 * the streams' slices add up to more than twice that. The kernels are the
 * only activity, so the window is the whole trace. */
static KsTrace *
overlapping_streams (void)
{
  g_autoptr(GError) error = NULL;
  KsTraceBuilder *b = ks_trace_builder_new (KS_FORMAT_KINETO_JSON);
  guint32 s1 = ks_trace_builder_get_stream_track (b, 0, 7);
  guint32 s2 = ks_trace_builder_get_stream_track (b, 0, 8);
  guint32 kernel = ks_trace_builder_intern (b, "gemm");
  KsGpu gpu = { 0 };
  KsTrace *trace;

  gpu.device = 0;
  gpu.name = ks_trace_builder_intern (b, "Test GPU");
  ks_trace_builder_add_gpu (b, &gpu);

  for (gint64 k = 0; k < N_KERNELS; k++)
    {
      gint64 t = BASE + k * PERIOD;

      ks_trace_builder_add_slice (b, s1, t, t + KERNEL, KS_SLICE_KERNEL, kernel, 0, 0, 0, 0, NULL);
      ks_trace_builder_add_slice (b, s2, t, t + KERNEL, KS_SLICE_KERNEL, kernel, 0, 0, 0, 0, NULL);
    }
  ks_trace_builder_add_slice (b, s2, BASE + COPY_START, BASE + COPY_END, KS_SLICE_MEMCPY,
                              ks_trace_builder_intern (b, "Memcpy HtoD (Pinned -> Device)"),
                              0, 0, 0, 0, NULL);

  trace = ks_trace_builder_finish (b, NULL, &error);
  g_assert_no_error (error);
  return trace;
}

/* The union of the kernels within [t0, t1), from the pattern itself. */
static gint64
kernel_union_in (gint64 t0,
                 gint64 t1)
{
  gint64 total = 0;

  for (gint64 k = MAX (0, t0 / PERIOD - 1); k < N_KERNELS && k * PERIOD < t1; k++)
    {
      gint64 a = MAX (t0, k * PERIOD);
      gint64 b = MIN (t1, k * PERIOD + KERNEL);

      if (b > a)
        total += b - a;
    }
  return total;
}

static void
test_overlapping_streams (void)
{
  g_autoptr(KsTrace) trace = overlapping_streams ();
  g_autoptr(KsAnalysis) analysis = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("ks-overview-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "streams.kscope", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  const KsGpuSummary *gpu;
  const KsTraceBusy *tb;
  KsOverview *overview;
  KsWindow *window;
  const float *columns;
  guint n_columns = 0;
  gint64 span = trace->duration_ns;
  double total = 0;

  g_assert_cmpint (span, ==, (N_KERNELS - 1) * PERIOD + KERNEL);
  analysis = ks_analysis_compute (trace, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  gpu = ks_analysis_get_gpu (analysis, 0);
  g_assert_cmpint (gpu->busy_ns, ==, N_KERNELS * KERNEL);
  g_assert_cmpint (gpu->window_ns, ==, span);
  g_assert_cmpfloat_with_epsilon (gpu->busy_pct, 100.0 * N_KERNELS * KERNEL / span, 1e-9);

  /* The analysis' buckets: the union of the two streams' kernels in each,
   * computed once, adding up to the GPU's busy time. */
  tb = ks_analysis_get_trace_busy (analysis);
  g_assert_true (tb->gpu);
  g_assert_cmpuint (tb->n_buckets, <=, KS_TRACE_BUSY_BUCKETS);
  g_assert_cmpuint (tb->n_buckets, >, KS_TRACE_BUSY_BUCKETS - 2);
  g_assert_cmpint (tb->bucket_ns * tb->n_buckets, >=, span);
  g_assert_cmpint (tb->bucket_ns * (tb->n_buckets - 1), <, span);
  for (guint b = 0; b < tb->n_buckets; b++)
    {
      gint64 b0 = b * tb->bucket_ns;
      gint64 b1 = MIN (b0 + tb->bucket_ns, span);

      if (fabs (tb->busy[b] - (double)kernel_union_in (b0, b1) / (b1 - b0)) > 1e-12)
        g_error ("bucket %u (%" G_GINT64_FORMAT "–%" G_GINT64_FORMAT " ns): %.6f busy, the union is %.6f",
                 b, b0, b1, tb->busy[b], (double)kernel_union_in (b0, b1) / (b1 - b0));
      total += tb->busy[b] * (b1 - b0);
    }
  g_assert_cmpfloat_with_epsilon (total, (double)gpu->busy_ns, 1e-3);
  total = 0;

  g_assert_true (ks_kscope_write (trace, file, NULL, NULL, &error));
  g_assert_no_error (error);

  window = ks_window_new (NULL);
  gtk_window_set_default_size (GTK_WINDOW (window), 1400, 860);
  gtk_window_present (GTK_WINDOW (window));
  ks_window_open (window, file);
  WAIT_FOR (ks_window_get_session (window) != NULL);

  overview = KS_OVERVIEW (ks_test_find_descendant (GTK_WIDGET (window), KS_TYPE_OVERVIEW, NULL));
  g_assert_nonnull (overview);
  WAIT_FOR (gtk_widget_get_width (GTK_WIDGET (overview)) > KS_HEADER_WIDTH + 400);

  /* Each pixel column shows the busy fraction of its span of the trace,
   * from the analysis' buckets it covers: the interval union, about 10 %,
   * where the sum of the streams is 20 % (or more under the copy). */
  for (int tries = 0; tries < 200; tries++)
    {
      columns = ks_overview_get_columns (overview, &n_columns);
      if (columns != NULL && n_columns == (guint)(gtk_widget_get_width (GTK_WIDGET (overview)) - KS_HEADER_WIDTH))
        break;
      gtk_widget_queue_draw (GTK_WIDGET (overview));
      ks_test_spin (50);
    }
  g_assert_nonnull (columns);
  g_assert_cmpuint (n_columns, ==, gtk_widget_get_width (GTK_WIDGET (overview)) - KS_HEADER_WIDTH);

  for (guint c = 0; c < n_columns; c++)
    {
      gint64 t0 = (gint64)((double)c * span / n_columns);
      gint64 t1 = c + 1 == n_columns ? span : (gint64)((double)(c + 1) * span / n_columns);
      double expected = 0;

      for (guint b = 0; b < tb->n_buckets; b++)
        {
          double b0 = (double)b * tb->bucket_ns;
          double b1 = MIN (b0 + tb->bucket_ns, (double)span);
          double len = MIN (b1, (double)(c + 1) * span / n_columns) - MAX (b0, (double)c * span / n_columns);

          if (len > 0)
            expected += tb->busy[b] * len;
        }
      expected /= (double)span / n_columns;
      if (fabs (columns[c] - expected) > 1e-4)
        g_error ("column %u (%" G_GINT64_FORMAT "–%" G_GINT64_FORMAT " ns): %.4f busy, the analysis has %.4f",
                 c, t0, t1, columns[c], expected);
      total += columns[c];
    }

  /* Over the whole strip: the Summary's busy figure. */
  g_assert_cmpfloat_with_epsilon (100.0 * total / n_columns, gpu->busy_pct, 0.05);

  gtk_window_destroy (GTK_WINDOW (window));
  g_unlink (path);
  g_rmdir (dir);
}

int
main (int   argc,
      char *argv[])
{
  if (!ks_test_init_gtk (&argc, &argv))
    return 77;

  g_test_add_func ("/app/overview/overlapping-streams", test_overlapping_streams);

  return g_test_run ();
}
