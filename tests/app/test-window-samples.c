/* test-window-samples.c: Python samples taken while a thread waited, in
 * the window
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* The thread's Python samples row draws the frame it waited in faded, and
 * clicking it shows how many of its samples waited, under Python Frame;
 * a frame the thread ran in has no such row. */

#include "config.h"

#include <adwaita.h>

#include "ks-selection-page.h"
#include "ks-slice-colors.h"
#include "ks-test-gtk.h"
#include "ks-test-samples.h"
#include "ks-timeline-layout.h"
#include "ks-window.h"

#define WAIT_FOR(cond) KS_TEST_WAIT_FOR (cond, 30000)

static KsWindow *
open_window (const char *name)
{
  g_autofree char *path = g_build_filename (g_getenv ("KS_FIXTURES_DIR"), name, NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  KsWindow *window = ks_window_new (NULL);

  gtk_window_set_default_size (GTK_WINDOW (window), 1400, 860);
  gtk_window_present (GTK_WINDOW (window));
  ks_window_open (window, file);
  WAIT_FOR (ks_window_get_session (window) != NULL);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  WAIT_FOR (gtk_widget_get_width (GTK_WIDGET (ks_window_get_timeline (window))) > 400);
  return window;
}

/* The three slices of step, in time order. */
static void
step_slices (KsTrace *trace,
             guint32 *track,
             guint32  slices[3])
{
  guint n = 0;

  ks_test_find_sample_slice (trace, "step", track);
  for (guint32 i = 0; i < trace->tracks[*track].n_slices; i++)
    if (g_str_equal (ks_trace_string (trace, trace->tracks[*track].name_id[i]), "step"))
      {
        g_assert_cmpuint (n, <, 3);
        slices[n++] = i;
      }
  g_assert_cmpuint (n, ==, 3);
}

static void
test_waiting_frame (void)
{
  KsWindow *window = open_window ("loader_bound.pt.trace.json.gz");
  KsSession *session = ks_window_get_session (window);
  KsTimeline *timeline = ks_window_get_timeline (window);
  KsSelectionPage *page = KS_SELECTION_PAGE (ks_window_get_page (window, "selection"));
  g_autoptr(KsTrace) trace = ks_test_waiting_trace ();
  KsTimelineLayout *layout;
  const KsTrack *t;
  guint32 track = 0, slices[3], sel_track, sel_slice;
  double x, y;

  ks_session_set_trace (session, trace);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (timeline));
  ks_session_fit_all (session);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (timeline));
  layout = ks_timeline_get_layout (timeline);
  step_slices (trace, &track, slices);
  t = &trace->tracks[track];

  /* the waiting slice in step's colour, faded; the running ones in it */
  for (gboolean dark = FALSE; dark <= TRUE; dark++)
    {
      KsColor running = ks_timeline_layout_slice_color (layout, t, slices[0], dark);

      g_assert_cmphex (ks_timeline_layout_slice_color (layout, t, slices[2], dark), ==, running);
      g_assert_cmphex (ks_timeline_layout_slice_color (layout, t, slices[1], dark), ==,
                       ks_palette_waiting_color (running, dark));
      g_assert_cmphex (ks_palette_waiting_color (running, dark), !=, running);
    }

  /* clicking the waiting frame: 10 samples, 10 of them waiting */
  g_assert_true (ks_timeline_get_slice_point (timeline, track, slices[1], &x, &y));
  ks_test_click_timeline (GTK_WIDGET (timeline), 1, x, y);
  g_assert_true (ks_session_get_selected_slice (session, &sel_track, &sel_slice));
  g_assert_cmpuint (sel_track, ==, track);
  g_assert_cmpuint (sel_slice, ==, slices[1]);
  g_assert_cmpstr (ks_selection_page_lookup_value (page, "Python Frame", "Function"), ==, "step");
  g_assert_cmpstr (ks_selection_page_lookup_value (page, "Python Frame", "Samples"), ==, "10");
  g_assert_cmpstr (ks_selection_page_lookup_value (page, "Python Frame", "Waiting"), ==, "10");

  /* and a frame it ran in: no Waiting row */
  g_assert_true (ks_timeline_get_slice_point (timeline, track, slices[2], &x, &y));
  ks_test_click_timeline (GTK_WIDGET (timeline), 1, x, y);
  g_assert_true (ks_session_get_selected_slice (session, &sel_track, &sel_slice));
  g_assert_cmpuint (sel_slice, ==, slices[2]);
  g_assert_cmpstr (ks_selection_page_lookup_value (page, "Python Frame", "Samples"), ==, "10");
  g_assert_null (ks_selection_page_lookup_value (page, "Python Frame", "Waiting"));

  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int    argc,
      char **argv)
{
  if (!ks_test_init_gtk (&argc, &argv))
    return 77;
  g_test_add_func ("/window/samples/waiting-frame", test_waiting_frame);
  return g_test_run ();
}
