/* ks-bench-timeline.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* Frame time of the timeline widget on a synthetic trace of more than
 * five million slices, with GTK's software renderer: each frame is the
 * widget's snapshot (level of detail, render nodes, labels) plus GSK's
 * cairo renderer drawing the node tree into a 1920×1080 texture.
 *
 *   xvfb-run -a -s "-screen 0 1920x1080x24" _build/bench/ks-bench-timeline [--streams N] [--kernels N]
 */

#include "config.h"

#include <adwaita.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "ks-session.h"
#include "ks-timeline.h"
#include "ks-trace-builder.h"

#define WIDTH  1920
#define HEIGHT 1080

static int n_streams = 4;
static int n_kernels = 1100000;      /* per stream */
static int n_cpu_units = 120000;     /* per thread; 3 slices each */
static int n_threads = 10000;        /* the many-rows trace */

static KsTrace *
build_trace (void)
{
  g_autoptr(GError) error = NULL;
  KsTraceBuilder *b = ks_trace_builder_new (KS_FORMAT_KINETO_JSON);
  GRand *rand = g_rand_new_with_seed (42);
  guint32 names[200], ops[40], util;
  gint64 end_max = 0;
  KsGpu gpu = { 0 };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *n = g_strdup_printf ("void kernel_%u<float, %u>(float const*, float*, int)", i, i % 7);

      names[i] = ks_trace_builder_intern (b, n);
    }
  for (guint i = 0; i < G_N_ELEMENTS (ops); i++)
    {
      g_autofree char *n = g_strdup_printf ("aten::op_%u", i);

      ops[i] = ks_trace_builder_intern (b, n);
    }

  gpu.device = 0;
  gpu.name = ks_trace_builder_intern (b, "Synthetic GPU");
  ks_trace_builder_add_gpu (b, &gpu);

  /* GPU streams: back-to-back kernels of 2-40 µs with 1-20 µs gaps;
   * every 50th activity is a copy. */
  for (int s = 0; s < n_streams; s++)
    {
      guint32 track = ks_trace_builder_get_stream_track (b, 0, 7 + s);
      gint64 t = 1000000000;

      for (int i = 0; i < n_kernels; i++)
        {
          gint64 dur = g_rand_int_range (rand, 2000, 40000);
          KsGpuInfo info = { 0 };
          KsSliceKind kind = i % 50 == 49 ? KS_SLICE_MEMCPY : KS_SLICE_KERNEL;

          if (kind == KS_SLICE_MEMCPY)
            {
              info.copy.bytes = 1 << 20;
              info.copy.copy_kind = KS_COPY_HTOD;
            }
          ks_trace_builder_add_slice (b, track, t, t + dur, kind,
                                      names[g_rand_int_range (rand, 0, G_N_ELEMENTS (names))],
                                      0, 0, 0, 0, &info);
          t += dur + g_rand_int_range (rand, 1000, 20000);
        }
      end_max = MAX (end_max, t);
    }

  /* Two CPU threads: steps of nested operators. */
  for (int th = 0; th < 2; th++)
    {
      guint32 p = ks_trace_builder_get_process (b, 100);
      guint32 thread = ks_trace_builder_get_thread (b, p, 100 + th);
      guint32 track = ks_trace_builder_get_thread_track (b, thread);
      gint64 step = (end_max - 1000000000) / n_cpu_units;
      gint64 t = 1000000000;

      for (int i = 0; i < n_cpu_units; i++)
        {
          guint32 op = ops[g_rand_int_range (rand, 0, G_N_ELEMENTS (ops))];

          ks_trace_builder_add_slice (b, track, t, t + step - 100, KS_SLICE_CPU_OP, op, 0, 0, 0, 0, NULL);
          ks_trace_builder_add_slice (b, track, t + 100, t + step / 2, KS_SLICE_CPU_OP, op, 0, 0, 0, 0, NULL);
          ks_trace_builder_add_slice (b, track, t + step / 2 + 100, t + step - 200, KS_SLICE_CUDA_RUNTIME,
                                      ks_trace_builder_intern (b, "cudaLaunchKernel"), 0, 0, 0, 0, NULL);
          t += step;
        }
    }

  /* GPU utilization every millisecond. */
  util = ks_trace_builder_get_counter (b, "GPU utilization", "%", 0, KS_NO_INDEX);
  for (gint64 t = 1000000000; t < end_max; t += 1000000)
    ks_trace_builder_add_counter_sample (b, util, t, g_rand_double_range (rand, 0, 100));

  g_rand_free (rand);
  return ks_trace_builder_finish (b, NULL, &error);
}

/* Many rows: @count threads in processes of 100 threads, 50 slices
 * of two levels each. */
static KsTrace *
build_threads_trace (int count)
{
  g_autoptr(GError) error = NULL;
  KsTraceBuilder *b = ks_trace_builder_new (KS_FORMAT_CHROME_JSON);
  guint32 name = ks_trace_builder_intern (b, "work");
  guint32 inner = ks_trace_builder_intern (b, "inner");

  for (int i = 0; i < count; i++)
    {
      guint32 p = ks_trace_builder_get_process (b, 1000 + i / 100);
      guint32 th = ks_trace_builder_get_thread (b, p, 100000 + i);
      guint32 track = ks_trace_builder_get_thread_track (b, th);

      for (int k = 0; k < 50; k++)
        {
          gint64 t = 1000000 + (gint64)k * 1000000 + (i % 7) * 10000;

          ks_trace_builder_add_slice (b, track, t, t + 600000, KS_SLICE_GENERIC, name, 0, 0, 0, 0, NULL);
          ks_trace_builder_add_slice (b, track, t + 100000, t + 300000, KS_SLICE_GENERIC, inner, 0, 0, 0, 0, NULL);
        }
    }

  return ks_trace_builder_finish (b, NULL, &error);
}

/* CPU time of this thread: on a busy machine wall time also counts the
 * time other processes had the core. */
static double cpu_ms_last;

static double
thread_cpu_ms (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static double
frame_ms (GtkWidget   *timeline,
          GskRenderer *renderer)
{
  GtkSnapshot *snapshot;
  GskRenderNode *node;
  GdkTexture *texture;
  double cpu_start = thread_cpu_ms ();
  gint64 start = g_get_monotonic_time ();

  snapshot = gtk_snapshot_new ();
  GTK_WIDGET_GET_CLASS (timeline)->snapshot (timeline, snapshot);
  node = gtk_snapshot_free_to_node (snapshot);
  texture = gsk_renderer_render_texture (renderer, node,
                                         &GRAPHENE_RECT_INIT (0, 0, gtk_widget_get_width (timeline),
                                                              gtk_widget_get_height (timeline)));
  g_object_unref (texture);
  gsk_render_node_unref (node);

  cpu_ms_last = thread_cpu_ms () - cpu_start;
  return (g_get_monotonic_time () - start) / 1000.0;
}

static int
compare_doubles (gconstpointer a,
                 gconstpointer b)
{
  double da = *(const double *)a, db = *(const double *)b;

  return da < db ? -1 : da > db;
}

static double
percentile (GArray *values,
            double  p)
{
  guint i;

  g_array_sort (values, compare_doubles);
  i = (guint)MIN (values->len - 1, floor (p / 100.0 * (values->len - 1) + 0.5));
  return g_array_index (values, double, i);
}

static long
rss_kib (void)
{
  long pages = 0, resident = 0;
  FILE *f = fopen ("/proc/self/statm", "r");

  if (f == NULL)
    return -1;
  if (fscanf (f, "%ld %ld", &pages, &resident) != 2)
    resident = -1;
  fclose (f);
  return resident * (sysconf (_SC_PAGESIZE) / 1024);
}

static gboolean
timeout_cb (gpointer data)
{
  *(gboolean *)data = TRUE;
  return G_SOURCE_REMOVE;
}

/* Each array holds (wall, cpu) pairs. */
static void
row (const char *what,
     GArray     *pairs)
{
  g_autoptr(GArray) wall = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) cpu = g_array_new (FALSE, FALSE, sizeof (double));

  for (guint i = 0; i + 1 < pairs->len; i += 2)
    {
      g_array_append_val (wall, g_array_index (pairs, double, i));
      g_array_append_val (cpu, g_array_index (pairs, double, i + 1));
    }
  printf ("| %-44s | %5u | %7.2f | %7.2f | %7.2f | %7.2f | %7.2f | %7.2f |\n", what, wall->len,
          percentile (wall, 50), percentile (wall, 90), percentile (wall, 99), percentile (wall, 100),
          percentile (cpu, 50), percentile (cpu, 99));
}

static void
record (GArray *pairs,
        double  wall)
{
  g_array_append_val (pairs, wall);
  g_array_append_val (pairs, cpu_ms_last);
}

#define HEADER \
  "| frames (ms)                                  |     n | median |     p90 |     p99 |     max | CPU med | CPU p99 |\n" \
  "|---|---:|---:|---:|---:|---:|---:|---:|\n"

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *load_average = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsSession) session = NULL;
  g_autoptr(GArray) zoomed_out = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) random_pos = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) cached = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) panning = g_array_new (FALSE, FALSE, sizeof (double));
  KsTraceCounts counts;
  GtkWidget *window, *timeline;
  GskRenderer *renderer;
  GRand *rand;
  guint64 n_slices = 0;
  gint64 build_start;
  double d, build_s;
  long rss_before, rss_after;
  gboolean done = FALSE;
  GOptionEntry entries[] = {
    { "streams", 0, 0, G_OPTION_ARG_INT, &n_streams, "GPU streams", "N" },
    { "kernels", 0, 0, G_OPTION_ARG_INT, &n_kernels, "Kernels per stream", "N" },
    { "threads", 0, 0, G_OPTION_ARG_INT, &n_threads, "Threads of the many-rows trace", "N" },
    { NULL }
  };

  /* The software renderer, as the budget is stated for it. */
  g_setenv ("GSK_RENDERER", "cairo", TRUE);

  context = g_option_context_new ("— timeline frame times");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("%s\n", error->message);
      return 2;
    }

  gtk_init ();
  adw_init ();

  if (g_file_get_contents ("/proc/loadavg", &load_average, NULL, NULL))
    g_strstrip (load_average);
  else
    load_average = g_strdup ("unknown");

  build_start = g_get_monotonic_time ();
  trace = build_trace ();
  build_s = (g_get_monotonic_time () - build_start) / 1e6;
  ks_trace_get_counts (trace, &counts);
  for (guint k = 0; k < KS_N_SLICE_KINDS; k++)
    n_slices += counts.by_kind[k];
  d = trace->duration_ns;

  session = ks_session_new (trace);
  window = gtk_window_new ();
  gtk_window_set_decorated (GTK_WINDOW (window), FALSE);
  gtk_window_set_default_size (GTK_WINDOW (window), WIDTH, HEIGHT);
  timeline = ks_timeline_new ();
  gtk_window_set_child (GTK_WINDOW (window), timeline);
  ks_timeline_set_session (KS_TIMELINE (timeline), session);
  gtk_window_present (GTK_WINDOW (window));

  g_timeout_add (1500, timeout_cb, &done);
  while (!done)
    g_main_context_iteration (NULL, TRUE);

  renderer = gtk_native_get_renderer (GTK_NATIVE (window));
  printf ("trace: %" G_GUINT64_FORMAT " slices on %u tracks, %.1f s long (built in %.1f s)\n",
          n_slices, trace->n_tracks, d / 1e9, build_s);
  printf ("widget: %d×%d, renderer %s\n\n", gtk_widget_get_width (timeline), gtk_widget_get_height (timeline),
          G_OBJECT_TYPE_NAME (renderer));

  /* Fully zoomed out; a 1 ns shift each frame defeats the row cache. */
  for (int i = 0; i < 60; i++)
    {
      ks_session_set_visible (session, (i % 2), d + (i % 2));
      record (zoomed_out, frame_ms (timeline, renderer));
    }

  /* Unchanged view (hover or selection redraws): cached row nodes. */
  for (int i = 0; i < 60; i++)
    record (cached, frame_ms (timeline, renderer));

  /* 200 random positions, zoom from the whole trace down to a millionth of it. */
  rand = g_rand_new_with_seed (7);
  for (int i = 0; i < 200; i++)
    {
      double span = d * pow (10, -6 * g_rand_double (rand));
      double mid = g_rand_double_range (rand, 0, d);

      ks_session_set_visible (session, mid - span / 2, mid + span / 2);
      record (random_pos, frame_ms (timeline, renderer));
    }

  /* Memory while panning: 1000 pans of 2 % at 1/1000 of the trace. */
  ks_session_set_visible (session, 0, d / 1000);
  for (int i = 0; i < 100; i++)
    {
      ks_session_pan (session, d / 1000 * 0.02);
      frame_ms (timeline, renderer);
    }
  rss_before = rss_kib ();
  for (int i = 0; i < 1000; i++)
    {
      ks_session_pan (session, d / 1000 * 0.02);
      record (panning, frame_ms (timeline, renderer));
    }
  rss_after = rss_kib ();

  printf ("load average at start: %s\n", load_average);
  printf (HEADER);
  row ("fully zoomed out (content redrawn)", zoomed_out);
  row ("unchanged view (cached row nodes)", cached);
  row ("200 random zoom/pan positions", random_pos);
  row ("panning at 1/1000 of the trace", panning);
  printf ("\nresident memory while panning: %ld KiB before 1000 pans, %ld KiB after (%+ld KiB)\n",
          rss_before, rss_after, rss_after - rss_before);

  /* Thousands of threads: rows outside the viewport cost nothing. */
  {
    g_autoptr(KsTrace) many = build_threads_trace (n_threads);
    g_autoptr(KsSession) many_session = ks_session_new (many);
    g_autoptr(GArray) scrolled = g_array_new (FALSE, FALSE, sizeof (double));
    GtkWidget *scroller = gtk_scrolled_window_new ();
    GtkWidget *many_timeline = ks_timeline_new ();
    GtkAdjustment *vadj;
    gint64 layout_start;
    double layout_ms;

    gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroller), GTK_POLICY_NEVER, GTK_POLICY_EXTERNAL);
    gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), many_timeline);
    gtk_window_set_child (GTK_WINDOW (window), scroller);
    layout_start = g_get_monotonic_time ();
    ks_timeline_set_session (KS_TIMELINE (many_timeline), many_session);
    layout_ms = (g_get_monotonic_time () - layout_start) / 1000.0;

    done = FALSE;
    g_timeout_add (500, timeout_cb, &done);
    while (!done)
      g_main_context_iteration (NULL, TRUE);

    vadj = gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (many_timeline));
    for (int i = 0; i < 100; i++)
      {
        double upper = gtk_adjustment_get_upper (vadj) - gtk_adjustment_get_page_size (vadj);

        gtk_adjustment_set_value (vadj, g_rand_double_range (rand, 0, MAX (1, upper)));
        ks_session_set_visible (many_session, (i % 2), many->duration_ns + (i % 2));
        record (scrolled, frame_ms (many_timeline, renderer));
      }

    printf ("\n%d threads in %d processes (%u tracks): rows laid out in %.1f ms, content %.0f px tall\n",
            n_threads, (n_threads + 99) / 100, many->n_tracks, layout_ms, gtk_adjustment_get_upper (vadj));
    printf (HEADER);
    row ("random vertical scroll positions, whole trace", scrolled);
  }

  g_rand_free (rand);
  gtk_window_destroy (GTK_WINDOW (window));
  return 0;
}
