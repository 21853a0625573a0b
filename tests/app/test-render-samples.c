/* test-render-samples.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* A thread's Python samples row when some samples were taken while the
 * thread waited: the innermost frame is a slice of its own where the
 * thread goes from running to waiting, the waiting slices (and callers
 * that only waited) have the category "waiting" and a "waiting" count,
 * and the PNG draws them in their frame's colour, faded. */

#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "ks-render.h"
#include "ks-slice-colors.h"
#include "ks-test-samples.h"
#include "test-render-util.h"

static const KsTrack *
samples_track (KsTrace *trace)
{
  for (guint32 t = 0; t < trace->n_tracks; t++)
    if (trace->tracks[t].kind == KS_TRACK_SAMPLES)
      return &trace->tracks[t];
  g_assert_not_reached ();
  return NULL;
}

static void
test_waiting_slices (void)
{
  g_autoptr(KsTrace) trace = ks_test_waiting_trace ();
  const KsTrack *track = samples_track (trace);
  guint32 waiting = ks_trace_lookup_string (trace, KS_SAMPLE_WAITING_CATEGORY);
  g_autoptr(GString) scratch = g_string_new (NULL);
  guint n_step = 0;

  g_assert_cmpuint (trace->n_samples, ==, 30);
  /* <module> and train: one slice each over all 30 samples, not waiting;
   * step: running, waiting, running */
  g_assert_cmpuint (track->n_slices, ==, 5);
  for (guint32 i = 0; i < track->n_slices; i++)
    {
      const char *name = ks_trace_string (trace, track->name_id[i]);
      const char *args = ks_trace_args (trace, track->args[i], scratch);

      if (!g_str_equal (name, "step"))
        {
          g_assert_cmpuint (track->category[i], ==, 0);
          g_assert_nonnull (strstr (args, "\"samples\":30"));
          g_assert_nonnull (strstr (args, "\"waiting\":10"));
          continue;
        }
      /* the second slice of step is the waiting one, 10 ms from 11 ms */
      g_assert_cmpint (track->start[i], ==, (gint64) (10 * n_step) * 1000000);
      if (n_step == 1)
        {
          g_assert_cmpuint (track->category[i], ==, waiting);
          g_assert_nonnull (strstr (args, "\"samples\":10,\"waiting\":10"));
        }
      else
        {
          g_assert_cmpuint (track->category[i], ==, 0);
          g_assert_null (strstr (args, "waiting"));
        }
      n_step++;
    }
  g_assert_cmpuint (n_step, ==, 3);
}

/* The waiting slice of step is drawn faded, the running ones in step's
 * colour. */
static void
test_png_waiting (void)
{
  g_autoptr(KsTrace) trace = ks_test_waiting_trace ();
  g_autoptr(KsTimelineLayout) layout = ks_timeline_layout_new (trace);
  const KsTrack *track = samples_track (trace);
  g_autofree char *path = NULL;
  g_autoptr(GError) error = NULL;
  cairo_surface_t *surface;
  const KsRow *row;
  KsRenderOptions options;
  KsTimeView view;
  KsColor running = 0, faded = 0;
  int fd, row_top;
  guint checked = 0;

  fd = g_file_open_tmp ("ks-render-XXXXXX.png", &path, &error);
  g_assert_no_error (error);
  close (fd);
  row = ks_timeline_layout_get_row (layout, ks_timeline_layout_find_track_row (layout, track->id));
  ks_render_options_init (&options, trace, 1200, 400);
  g_assert_true (ks_render_png (layout, &options, path, &error));
  g_assert_no_error (error);
  surface = cairo_image_surface_create_from_png (path);
  g_assert_cmpint (cairo_surface_status (surface), ==, CAIRO_STATUS_SUCCESS);
  ks_render_options_view (&options, &view);
  row_top = options.ruler_height + row->y;

  for (guint32 s = 0; s < track->n_slices; s++)
    {
      double quarter = (track->end[s] - track->start[s]) / 4.0;
      int x0 = options.header_width + (int) ((track->start[s] + quarter - view.t0) / view.ns_per_px);
      int x1 = options.header_width + (int) ((track->end[s] - quarter - view.t0) / view.ns_per_px);
      int y = row_top + ks_timeline_layout_lane_y (track->depth[s]) + 3;
      KsColor want = ks_timeline_layout_slice_color (layout, track, s, FALSE);
      int same = 0;

      if (!g_str_equal (ks_trace_string (trace, track->name_id[s]), "step"))
        continue;
      if (track->category[s] != 0)
        faded = want;
      else
        running = want;
      g_assert_cmpint (x1 - x0, >, 50);
      for (int x = x0; x < x1; x++)
        same += pixel_at (surface, x, y) == want;
      g_assert_cmpint (same, >, (x1 - x0) * 9 / 10);
      checked++;
    }
  g_assert_cmpuint (checked, ==, 3);
  g_assert_cmphex (running, ==, ks_palette_name_color ("step", KS_SLICE_SAMPLE, FALSE));
  g_assert_cmphex (faded, ==, ks_palette_waiting_color (running, FALSE));
  g_assert_cmphex (faded, !=, running);
  cairo_surface_destroy (surface);
  g_unlink (path);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/render/samples/waiting-slices", test_waiting_slices);
  g_test_add_func ("/render/samples/png-waiting", test_png_waiting);
  return g_test_run ();
}
