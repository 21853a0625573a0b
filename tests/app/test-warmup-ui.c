/* test-warmup-ui.c: the warm-up on the Summary page and in the timeline,
 * its switch, and the dotted outline of inferred steps
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <adwaita.h>
#include <string.h>

#include "ks-application.h"
#include "ks-palette.h"
#include "ks-test-gtk.h"
#include "ks-timeline-layout.h"
#include "ks-window.h"
#include "pages/ks-page-charts.h"
#include "pages/ks-summary-page.h"

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
  WAIT_FOR (ks_window_get_session (window) != NULL &&
            ks_session_get_analysis (ks_window_get_session (window)) != NULL);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  WAIT_FOR (gtk_widget_get_width (GTK_WIDGET (ks_window_get_timeline (window))) > 400);
  return window;
}

/* The timeline as GTK draws it, as B8G8R8A8 rows. */
static guchar *
draw_timeline (KsTimeline *timeline,
               int        *width,
               int        *height)
{
  g_autoptr(GskRenderNode) node = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  guchar *pixels;

  *width = gtk_widget_get_width (GTK_WIDGET (timeline));
  *height = gtk_widget_get_height (GTK_WIDGET (timeline));
  GTK_WIDGET_GET_CLASS (timeline)->snapshot (GTK_WIDGET (timeline), snapshot);
  node = gtk_snapshot_free_to_node (snapshot);
  texture = gsk_renderer_render_texture (gtk_native_get_renderer (gtk_widget_get_native (GTK_WIDGET (timeline))),
                                         node, &GRAPHENE_RECT_INIT (0, 0, *width, *height));
  pixels = g_malloc (4 * (gsize)*width * *height);
  gdk_texture_download (texture, pixels, 4 * *width);
  return pixels;
}

static gboolean
pixel_is (const guchar *pixels,
          int           width,
          int           x,
          int           y,
          KsColor       color)
{
  const guchar *p = pixels + 4 * ((gsize)y * width + x);

  return ABS (p[2] - (int)((color >> 24) & 0xff)) <= 3 &&
         ABS (p[1] - (int)((color >> 16) & 0xff)) <= 3 &&
         ABS (p[0] - (int)((color >> 8) & 0xff)) <= 3;
}

static int
time_to_x (KsSession *session,
           int        width,
           gint64     t)
{
  double t0, t1;

  ks_session_get_visible (session, &t0, &t1);
  return KS_HEADER_WIDTH + (int)((t - t0) / ((t1 - t0) / (width - KS_HEADER_WIDTH)));
}

/* small_mlp_60steps: steps 0 and 1 are the warm-up (test-warmup). */
static void
test_summary_switch (void)
{
  KsWindow *window = open_window ("small_mlp_60steps.kscope");
  KsSession *session = ks_window_get_session (window);
  GtkWidget *page = ks_window_get_page (window, "summary");
  GSettings *settings = ks_application_get_settings ();
  GtkWidget *row, *toggle;
  KsAnalysis *before = ks_session_get_analysis (session);

  g_assert_nonnull (settings);
  g_assert_false (g_settings_get_boolean (settings, "include-warmup"));
  ks_window_show_page (window, "summary");
  WAIT_FOR (ks_test_find_descendant (page, ADW_TYPE_ACTION_ROW, "warmup-row") != NULL);
  row = ks_test_find_descendant (page, ADW_TYPE_ACTION_ROW, "warmup-row");
  g_assert_cmpstr (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)), ==,
                   "Warm-up: step 0, step 1, 291 ms (CUDA module loading 177 ms, Memory allocation 3.00 ms), "
                   "left out of the figures below");
  g_assert_cmpint (ks_analysis_get_gpu (before, 0)->window_ns, ==, 141060575);
  {
    g_autofree char *tip = ks_chart_steps_tooltip (ks_session_get_trace (session), before, 0);

    /* the step chart's tooltip of a warm-up step says so */
    g_assert_true (g_str_has_prefix (tip, "step 0: 278 ms\nWarm-up: left out of the figures"));
  }

  /* the switch: a setting, and the figures over every step */
  toggle = ks_test_find_descendant (row, GTK_TYPE_SWITCH, "include-warmup");
  g_assert_nonnull (toggle);
  g_assert_false (gtk_switch_get_active (GTK_SWITCH (toggle)));
  gtk_switch_set_active (GTK_SWITCH (toggle), TRUE);
  g_assert_true (ks_summary_page_get_include_warmup (KS_SUMMARY_PAGE (page)));
  g_assert_true (g_settings_get_boolean (settings, "include-warmup"));
  WAIT_FOR (ks_session_get_analysis (session) != NULL &&
            ks_analysis_get_options (ks_session_get_analysis (session))->include_warmup);
  g_assert_cmpint (ks_analysis_get_gpu (ks_session_get_analysis (session), 0)->window_ns, ==, 432078709);
  WAIT_FOR ((row = ks_test_find_descendant (page, ADW_TYPE_ACTION_ROW, "warmup-row")) != NULL &&
            g_str_has_suffix (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)), "included in the figures"));

  /* and back, from the setting */
  g_settings_set_boolean (settings, "include-warmup", FALSE);
  WAIT_FOR (ks_session_get_analysis (session) != NULL &&
            !ks_analysis_get_options (ks_session_get_analysis (session))->include_warmup);
  g_settings_reset (settings, "include-warmup");
  gtk_window_destroy (GTK_WINDOW (window));
}

/* The warm-up is tinted in the timeline, the steady steps are not: below
 * the rows the background shows through. */
static void
test_timeline_warmup (void)
{
  KsWindow *window = open_window ("small_mlp_60steps.kscope");
  KsSession *session = ks_window_get_session (window);
  KsTimeline *timeline = ks_window_get_timeline (window);
  const KsTheme *theme = ks_theme_get (adw_style_manager_get_dark (adw_style_manager_get_default ()));
  const KsStep *steps = ks_analysis_get_steps (ks_session_get_analysis (session), NULL);
  g_autofree guchar *pixels = NULL;
  int width, height, in, out, y;

  ks_session_set_visible (session, steps[0].start - 50000000, steps[2].end + 50000000);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (timeline));
  pixels = draw_timeline (timeline, &width, &height);
  in = time_to_x (session, width, (steps[0].start + steps[0].end) / 2);
  out = time_to_x (session, width, steps[2].end + 25000000);
  y = height - 3;
  g_assert_cmpint (in, >, KS_HEADER_WIDTH);
  g_assert_cmpint (out, <, width);
  g_assert_true (pixel_is (pixels, width, out, y, theme->background));
  g_assert_false (pixel_is (pixels, width, in, y, theme->background));
  gtk_window_destroy (GTK_WINDOW (window));
}

/* An inferred step is outlined with dots along the top of the rows. */
static void
test_timeline_inferred (void)
{
  KsWindow *window = open_window ("nosteps_slow.pt.trace.json.gz");
  KsSession *session = ks_window_get_session (window);
  KsTimeline *timeline = ks_window_get_timeline (window);
  const KsTheme *theme = ks_theme_get (adw_style_manager_get_dark (adw_style_manager_get_default ()));
  const KsStep *steps;
  g_autofree guchar *pixels = NULL;
  int width, height, x0, x1;
  guint n, on = 0, off = 0;

  steps = ks_analysis_get_steps (ks_session_get_analysis (session), &n);
  g_assert_cmpuint (n, ==, 5);
  g_assert_true (steps[2].inferred);

  /* the Summary says which rule found them */
  {
    GtkWidget *page = ks_window_get_page (window, "summary");
    GtkWidget *row;

    ks_window_show_page (window, "summary");
    WAIT_FOR ((row = ks_test_find_descendant (page, ADW_TYPE_ACTION_ROW, "inferred-row")) != NULL);
    g_assert_cmpstr (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)), ==,
                     "Inferred from the DataLoader's batches");
    g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (row)), ==,
                     "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__");
  }
  {
    g_autofree char *tip = ks_chart_steps_tooltip (ks_session_get_trace (session),
                                                   ks_session_get_analysis (session), 2);

    g_assert_true (g_str_has_prefix (tip, "step 2: 4.59 ms\n"));
  }
  ks_session_set_visible (session, steps[1].start, steps[3].end);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (timeline));
  pixels = draw_timeline (timeline, &width, &height);
  x0 = time_to_x (session, width, steps[2].start) + 3;
  x1 = time_to_x (session, width, steps[2].end) - 3;
  g_assert_cmpint (x1 - x0, >, 100);
  for (int x = x0; x < x1; x++)
    {
      if (pixel_is (pixels, width, x, KS_RULER_HEIGHT, theme->dim_foreground))
        on++;
      else
        off++;
    }
  /* dots of 2 px every 5 px */
  g_test_message ("dotted: %u on, %u off", on, off);
  g_assert_cmpuint (on, >=, (x1 - x0) * 2 / 5 - 2);
  g_assert_cmpuint (off, >=, (x1 - x0) * 3 / 5 - 2);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* The Operators page of a recording made without operators names the
 * option that records them. */
static void
test_missing_operators (void)
{
  KsWindow *window = open_window ("small_mlp_60steps.kscope");
  GtkWidget *page = ks_window_get_page (window, "operators");
  GtkWidget *status;

  ks_window_show_page (window, "operators");
  WAIT_FOR ((status = ks_test_find_descendant (page, ADW_TYPE_STATUS_PAGE, NULL)) != NULL &&
            gtk_widget_get_visible (status));
  g_assert_cmpstr (adw_status_page_get_title (ADW_STATUS_PAGE (status)), ==, "No Operators");
  g_assert_nonnull (strstr (adw_status_page_get_description (ADW_STATUS_PAGE (status)),
                            "kinescope-cli record --pytorch=none"));
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int   argc,
      char *argv[])
{
  if (!ks_test_init_gtk (&argc, &argv))
    return 77;

  g_test_add_func ("/app/warmup/summary-switch", test_summary_switch);
  g_test_add_func ("/app/warmup/timeline", test_timeline_warmup);
  g_test_add_func ("/app/warmup/timeline-inferred", test_timeline_inferred);
  g_test_add_func ("/app/missing-operators", test_missing_operators);
  return g_test_run ();
}
