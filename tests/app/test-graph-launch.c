/* test-graph-launch.c: a CUDA graph launch in the window
 *
 * HTA's negative_queue_length_values_check rank 0 launches CUDA graphs:
 * every kernel and memset of a graph carries the correlation id of its
 * cudaGraphLaunch. Clicking the call shows one arrow to the graph's
 * first operation and one span holding them all, and the selection
 * page one row for the graph, counted here from the correlation ids.
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <adwaita.h>
#include <math.h>

#include "ks-format.h"
#include "ks-palette.h"
#include "ks-selection-page.h"
#include "ks-timeline-layout.h"
#include "ks-test-gtk.h"
#include "ks-window.h"

#define WAIT_FOR(cond) KS_TEST_WAIT_FOR (cond, 60000)

static char *
corpus_path (void)
{
  const char *shared = g_getenv ("KS_SHARED_DIR");

  return g_build_filename (shared ? shared : "../shared", "corpus", "hta", "negative_queue_length_values_check",
                           "rank0.json.gz", NULL);
}

/* The stream operations with @call's correlation id, not its flows:
 * how many, and their span. */
static guint
graph_operations (KsTrace *trace,
                  guint32  track,
                  guint32  slice,
                  gint64  *start,
                  gint64  *end,
                  guint32 *first_track,
                  guint32 *first_slice)
{
  const KsTrack *t = &trace->tracks[track];
  guint n = 0;

  for (guint32 s = 0; s < trace->n_tracks; s++)
    {
      const KsTrack *stream = &trace->tracks[s];

      if (stream->kind != KS_TRACK_STREAM || stream->group != t->group)
        continue;
      for (guint32 i = 0; i < stream->n_slices; i++)
        if (stream->correlation[i] == t->correlation[slice])
          {
            if (n == 0 || stream->start[i] < *start)
              {
                *first_track = s;
                *first_slice = i;
              }
            *start = n == 0 ? stream->start[i] : MIN (*start, stream->start[i]);
            *end = n == 0 ? stream->end[i] : MAX (*end, stream->end[i]);
            n++;
          }
    }
  return n;
}

static void
test_graph_launch (void)
{
  g_autofree char *path = corpus_path ();
  g_autoptr(GFile) file = NULL;
  KsWindow *window;
  KsSession *session;
  KsTimeline *timeline;
  KsTrace *trace;
  KsSelectionPage *page;
  guint32 track = KS_NO_INDEX, slice = KS_NO_INDEX, sel_track, sel_slice;
  guint32 graph_launch, op_track = KS_NO_INDEX, op_slice = KS_NO_INDEX;
  guint n_ops = 0, n;
  gint64 start = 0, end = 0, arrow_start, arrow_end;
  g_autofree char *span = NULL;
  g_autofree char *expected = NULL;
  double x, y;

  if (!g_file_test (path, G_FILE_TEST_IS_REGULAR))
    {
      g_test_skip ("the corpus (KS_SHARED_DIR/corpus/hta) is not available");
      return;
    }

  file = g_file_new_for_path (path);
  window = ks_window_new (NULL);
  gtk_window_set_default_size (GTK_WINDOW (window), 1400, 860);
  gtk_window_present (GTK_WINDOW (window));
  ks_window_open (window, file);
  WAIT_FOR (ks_window_get_session (window) != NULL);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  WAIT_FOR (gtk_widget_get_width (GTK_WIDGET (ks_window_get_timeline (window))) > 400);

  session = ks_window_get_session (window);
  timeline = ks_window_get_timeline (window);
  trace = ks_session_get_trace (session);
  page = KS_SELECTION_PAGE (ks_window_get_page (window, "selection"));

  /* The first cudaGraphLaunch of the largest graph (Python on the raw
   * file: 70 launches, of 1 to 20 operations) */
  graph_launch = ks_trace_lookup_string (trace, "cudaGraphLaunch");
  g_assert_cmpuint (graph_launch, !=, KS_NO_INDEX);
  for (guint32 t = 0; t < trace->n_tracks; t++)
    for (guint32 i = 0; i < trace->tracks[t].n_slices; i++)
      {
        gint64 s = 0, e = 0;
        guint32 ft = KS_NO_INDEX, fs = KS_NO_INDEX;
        guint k;

        if (trace->tracks[t].kind != KS_TRACK_THREAD || trace->tracks[t].name_id[i] != graph_launch)
          continue;
        k = graph_operations (trace, t, i, &s, &e, &ft, &fs);
        if (k > n_ops)
          {
            n_ops = k;
            start = s;
            end = e;
            track = t;
            slice = i;
            op_track = ft;
            op_slice = fs;
          }
      }
  g_assert_cmpuint (n_ops, ==, 20);

  /* The call and its graph in view, and a click on the call */
  ks_session_set_visible (session, trace->tracks[track].start[slice] - 200000, end + 200000);
  ks_timeline_reveal_track (timeline, track);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (timeline));
  g_assert_true (ks_timeline_get_slice_point (timeline, track, slice, &x, &y));
  ks_test_click_timeline (GTK_WIDGET (timeline), 1, x, y);
  g_assert_true (ks_session_get_selected_slice (session, &sel_track, &sel_slice));
  g_assert_cmpuint (sel_track, ==, track);
  g_assert_cmpuint (sel_slice, ==, slice);

  /* One arrow, and one span holding the graph's operations */
  g_assert_cmpuint (ks_timeline_get_n_flow_arrows (timeline), ==, 1);
  n = ks_timeline_get_flow_arrow_span (timeline, 0, &arrow_start, &arrow_end);
  g_assert_cmpuint (n, ==, n_ops);
  g_assert_cmpint (arrow_start, ==, start);
  g_assert_cmpint (arrow_end, ==, end);

  /* Drawn: the span's top edge in the flow colour on the first
   * operation's lane, from the graph's start to its end */
  ks_timeline_reveal_track (timeline, op_track);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (timeline));
  g_assert_true (ks_timeline_get_slice_point (timeline, op_track, op_slice, &x, &y));
  {
    const KsTheme *theme = ks_theme_get (FALSE);
    int width = gtk_widget_get_width (GTK_WIDGET (timeline));
    int height = gtk_widget_get_height (GTK_WIDGET (timeline));
    int top = (int)(y - KS_LANE_HEIGHT / 2.0) - 1;   /* the outline lies outside the lane */
    int x0 = (int)ceil (ks_timeline_time_to_x (timeline, start)) + 2;
    int x1 = (int)floor (ks_timeline_time_to_x (timeline, end)) - 2;
    g_autoptr(GskRenderNode) node = NULL;
    g_autoptr(GdkTexture) texture = NULL;
    g_autofree guchar *pixels = NULL;
    GtkSnapshot *snapshot = gtk_snapshot_new ();
    int found = 0;

    GTK_WIDGET_GET_CLASS (timeline)->snapshot (GTK_WIDGET (timeline), snapshot);
    node = gtk_snapshot_free_to_node (snapshot);
    texture = gsk_renderer_render_texture (gtk_native_get_renderer (gtk_widget_get_native (GTK_WIDGET (timeline))),
                                           node, &GRAPHENE_RECT_INIT (0, 0, width, height));
    pixels = g_malloc (4 * (gsize)width * height);
    gdk_texture_download (texture, pixels, 4 * width);
    g_assert_cmpint (x1 - x0, >, 20);
    for (int px = x0; px <= x1; px++)
      {
        const guchar *p = pixels + (gsize)top * 4 * width + 4 * px;

        found += ABS (p[2] - (int)((theme->flow >> 24) & 0xff)) <= 8 &&
                 ABS (p[1] - (int)((theme->flow >> 16) & 0xff)) <= 8 &&
                 ABS (p[0] - (int)((theme->flow >> 8) & 0xff)) <= 8;
      }
    g_assert_cmpint (found, ==, x1 - x0 + 1);
  }

  /* One row for the graph on the selection page */
  span = ks_time_format_duration (end - start);
  expected = g_strdup_printf ("%u operations in %s", n_ops, span);
  g_assert_cmpstr (ks_selection_page_lookup_value (page, "Flows", "Graph"), ==, expected);
  g_assert_cmpstr (ks_selection_page_lookup_value (page, "Flows", "Launches"), !=, NULL);

  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int   argc,
      char *argv[])
{
  if (!ks_test_init_gtk (&argc, &argv))
    return 77;

  g_test_add_func ("/app/graph-launch/one-span", test_graph_launch);

  return g_test_run ();
}
