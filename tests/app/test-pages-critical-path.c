/* test-pages-critical-path.c: the Critical Path page and the timeline's outline
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include <adwaita.h>

#include "ks-critical-path.h"
#include "ks-format.h"
#include "ks-palette.h"
#include "ks-test-gtk.h"
#include "ks-timeline.h"
#include "ks-window.h"
#include "pages/ks-critical-path-page.h"

#define LB_FILE "loader_bound.pt.trace.json.gz"
#define WAIT_FOR(cond) KS_TEST_WAIT_FOR (cond, 20000)

static char *screenshot_dir;

static KsWindow *
open_window (void)
{
  g_autofree char *path = g_build_filename (g_getenv ("KS_FIXTURES_DIR"), LB_FILE, NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  KsWindow *window = ks_window_new (NULL);

  gtk_window_set_default_size (GTK_WINDOW (window), 1400, 860);
  gtk_window_present (GTK_WINDOW (window));
  ks_window_open (window, file);
  WAIT_FOR (ks_window_get_session (window) != NULL);
  WAIT_FOR (ks_session_get_analysis (ks_window_get_session (window)) != NULL);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  return window;
}

/* The widget's pixels as rendered, RGBA rows; *stride set. */
static guchar *
render_widget (GtkWidget *widget,
               int       *width,
               int       *height,
               gsize     *stride)
{
  g_autoptr(GdkPaintable) paintable = gtk_widget_paintable_new (widget);
  g_autoptr(GtkSnapshot) snapshot = gtk_snapshot_new ();
  g_autoptr(GskRenderNode) node = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  guchar *pixels;

  *width = gtk_widget_get_width (widget);
  *height = gtk_widget_get_height (widget);
  g_assert_cmpint (*width, >, 0);
  g_assert_cmpint (*height, >, 0);
  gdk_paintable_snapshot (paintable, snapshot, *width, *height);
  node = gtk_snapshot_free_to_node (g_steal_pointer (&snapshot));
  g_assert_nonnull (node);
  texture = gsk_renderer_render_texture (gtk_native_get_renderer (gtk_widget_get_native (widget)), node,
                                         &GRAPHENE_RECT_INIT (0, 0, *width, *height));
  *stride = (gsize)*width * 4;
  pixels = g_malloc (*stride * *height);
  gdk_texture_download (texture, pixels, *stride);
  return pixels;
}

/* Pixels of @widget in the colour of the path's outline (either theme's). */
static guint
count_outline_pixels (GtkWidget *widget)
{
  KsColor colors[2] = { ks_theme_get (FALSE)->flow, ks_theme_get (TRUE)->flow };
  int width, height;
  gsize stride;
  g_autofree guchar *pixels = render_widget (widget, &width, &height, &stride);
  guint n = 0;

  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++)
      {
        const guchar *p = pixels + stride * y + 4 * x;

        for (guint c = 0; c < 2; c++)
          if (ABS (p[2] - (int)(KS_COLOR_R (colors[c]) * 255 + 0.5)) <= 2 &&
              ABS (p[1] - (int)(KS_COLOR_G (colors[c]) * 255 + 0.5)) <= 2 &&
              ABS (p[0] - (int)(KS_COLOR_B (colors[c]) * 255 + 0.5)) <= 2)
            n++;
      }
  return n;
}

/* The share of the middle row of @widget in colour @hex (downloaded
 * as B, G, R, A bytes: GDK_MEMORY_DEFAULT). */
static double
share_of_color (GtkWidget  *widget,
                const char *hex)
{
  GdkRGBA rgba;
  int width, height, same = 0;
  gsize stride;
  g_autofree guchar *pixels = render_widget (widget, &width, &height, &stride);
  const guchar *row = pixels + stride * (height / 2);

  gdk_rgba_parse (&rgba, hex);
  for (int x = 0; x < width; x++)
    if (ABS (row[4 * x + 2] - (int)(rgba.red * 255 + 0.5)) <= 2 &&
        ABS (row[4 * x + 1] - (int)(rgba.green * 255 + 0.5)) <= 2 &&
        ABS (row[4 * x + 0] - (int)(rgba.blue * 255 + 0.5)) <= 2)
      same++;
  return (double)same / width;
}

/* Saves the window as PNG when KS_TEST_SCREENSHOT_DIR is set. */
static void
save_screenshot (GtkWidget  *window,
                 const char *name)
{
  g_autoptr(GdkTexture) texture = NULL;
  g_autofree char *path = NULL;
  GtkWidget *content;
  GdkPaintable *paintable;
  g_autoptr(GtkSnapshot) snapshot = NULL;
  g_autoptr(GskRenderNode) node = NULL;
  int width, height;

  if (screenshot_dir == NULL)
    return;
  content = adw_application_window_get_content (ADW_APPLICATION_WINDOW (window));
  width = gtk_widget_get_width (content);
  height = gtk_widget_get_height (content);
  paintable = gtk_widget_paintable_new (content);
  snapshot = gtk_snapshot_new ();
  gdk_paintable_snapshot (paintable, snapshot, width, height);
  g_object_unref (paintable);
  node = gtk_snapshot_free_to_node (g_steal_pointer (&snapshot));
  if (node == NULL)
    return;
  texture = gsk_renderer_render_texture (gtk_native_get_renderer (gtk_widget_get_native (content)), node,
                                         &GRAPHENE_RECT_INIT (0, 0, width, height));
  path = g_build_filename (screenshot_dir, name, NULL);
  gdk_texture_save_to_png (texture, path);
}

static GtkWidget *
first_item_row (GtkWidget *page)
{
  GtkWidget *list = ks_test_find_descendant (page, GTK_TYPE_LIST_BOX, NULL);

  g_assert_nonnull (list);
  return GTK_WIDGET (gtk_list_box_get_row_at_index (GTK_LIST_BOX (list), 0));
}

/* The page shows the DataLoader-bound trace's first step: its bar mostly
 * the DataLoader's colour, its longest item the worker's sleep; the
 * timeline outlines the step's path; activating the item selects it. */
static void
test_page_and_outline (void)
{
  KsWindow *window = open_window ();
  KsSession *session = ks_window_get_session (window);
  KsCriticalPathPage *page = KS_CRITICAL_PATH_PAGE (ks_window_get_page (window, "critical-path"));
  KsTimeline *timeline = ks_window_get_timeline (window);
  KsCriticalPath *path;
  const KsPathStep *steps;
  const KsPathItem *item;
  GtkWidget *dropdown, *bar, *row;
  guint n, n_slices = 0;
  guint32 track, slice;
  double t0, t1;

  g_assert_nonnull (page);
  ks_window_show_page (window, "critical-path");
  WAIT_FOR (ks_critical_path_page_get_path (page) != NULL);
  path = ks_critical_path_page_get_path (page);
  steps = ks_critical_path_get_steps (path, &n);
  g_assert_cmpuint (n, >=, 1);

  dropdown = ks_test_find_descendant (GTK_WIDGET (page), GTK_TYPE_DROP_DOWN, NULL);
  g_assert_cmpuint (g_list_model_get_n_items (gtk_drop_down_get_model (GTK_DROP_DOWN (dropdown))), ==, n);
  g_assert_cmpuint (ks_critical_path_page_get_step (page), ==, steps[0].step);
  g_assert_nonnull (ks_test_find_label (GTK_WIDGET (page), "The path is"));

  /* The timeline outlines every slice stretch of the step's path. */
  for (guint i = 0; i < steps[0].n_segments; i++)
    n_slices += steps[0].segments[i].slice != KS_NO_INDEX;
  g_assert_cmpuint (n_slices, >, 0);
  g_assert_cmpuint (ks_timeline_get_n_path_slices (timeline), ==, n_slices);

  /* Drawn: the outline's colour is on the timeline with the path, and
   * not without it (nothing is selected yet). */
  gtk_test_widget_wait_for_draw (GTK_WIDGET (timeline));
  g_assert_cmpuint (count_outline_pixels (GTK_WIDGET (timeline)), >, 100);
  ks_timeline_set_critical_path (timeline, NULL, 0);
  g_assert_cmpuint (ks_timeline_get_n_path_slices (timeline), ==, 0);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (timeline));
  g_assert_cmpuint (count_outline_pixels (GTK_WIDGET (timeline)), ==, 0);
  ks_timeline_set_critical_path (timeline, path, steps[0].step);

  /* The bar: the DataLoader is 82 % of the path. */
  bar = ks_test_find_descendant (GTK_WIDGET (page), GTK_TYPE_DRAWING_AREA, NULL);
  gtk_test_widget_wait_for_draw (bar);
  g_assert_cmpfloat (share_of_color (bar, "#e5a50a"), >, 0.75);
  g_assert_cmpfloat (share_of_color (bar, "#e5a50a"), <, 0.9);

  save_screenshot (GTK_WIDGET (window), "critical-path-page.png");

  /* The longest item, activated: its slice selected and in view. */
  item = &steps[0].items[0];
  g_assert_cmpint (item->klass, ==, KS_PATH_DATALOADER);
  row = first_item_row (GTK_WIDGET (page));
  g_assert_nonnull (row);
  g_assert_cmpstr (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)), ==, "&lt;built-in function sleep&gt;");
  g_assert_true (gtk_widget_activate (row));
  g_assert_true (ks_session_get_selected_slice (session, &track, &slice));
  g_assert_cmpuint (track, ==, item->track);
  g_assert_cmpuint (slice, ==, item->slice);
  ks_session_get_visible (session, &t0, &t1);
  g_assert_cmpfloat (t0, <=, ks_session_get_trace (session)->tracks[track].start[slice]);
  g_assert_cmpfloat (t1, >=, ks_session_get_trace (session)->tracks[track].end[slice]);

  /* Another step: the outline follows. */
  if (n > 1)
    {
      gtk_drop_down_set_selected (GTK_DROP_DOWN (dropdown), 1);
      g_assert_cmpuint (ks_critical_path_page_get_step (page), ==, steps[1].step);
      n_slices = 0;
      for (guint i = 0; i < steps[1].n_segments; i++)
        n_slices += steps[1].segments[i].slice != KS_NO_INDEX;
      g_assert_cmpuint (ks_timeline_get_n_path_slices (timeline), ==, n_slices);
    }

  gtk_window_destroy (GTK_WINDOW (window));
}

/* The what-if editor: rules typed and applied re-time the steps, and
 * the page says by how much, as the library computes it; a wrong rule
 * says what is wrong. */
static void
test_what_if_editor (void)
{
  KsWindow *window = open_window ();
  KsSession *session = ks_window_get_session (window);
  KsCriticalPathPage *page = KS_CRITICAL_PATH_PAGE (ks_window_get_page (window, "critical-path"));
  g_autoptr(KsWhatIf) what_if = ks_what_if_parse ("dataloader=0", NULL);
  g_autoptr(KsCriticalPath) expected = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *after = NULL;
  GtkWidget *entry, *button, *label;
  KsCriticalPath *old;
  const KsPathStep *steps;
  guint n;

  ks_window_show_page (window, "critical-path");
  WAIT_FOR (ks_critical_path_page_get_path (page) != NULL);
  old = ks_critical_path_page_get_path (page);
  expected = ks_critical_path_compute (ks_session_get_trace (session), ks_session_get_analysis (session),
                                       NULL, what_if, NULL, &error);
  g_assert_no_error (error);
  steps = ks_critical_path_get_steps (expected, &n);
  after = ks_time_format_duration (steps[0].predicted_ns);

  entry = ks_test_find_descendant (GTK_WIDGET (page), GTK_TYPE_ENTRY, "what-if-entry");
  button = ks_test_find_descendant (GTK_WIDGET (page), GTK_TYPE_BUTTON, "what-if-apply");
  g_assert_nonnull (entry);
  g_assert_cmpstr (gtk_button_get_label (GTK_BUTTON (button)), ==, "Apply");

  gtk_editable_set_text (GTK_EDITABLE (entry), "gpu=0");
  /* A button activated clicks once its press has shown. */
  g_assert_true (gtk_widget_activate (button));
  WAIT_FOR ((label = ks_test_find_label (GTK_WIDGET (page), "what-if rule")) != NULL);
  g_assert_true (gtk_widget_has_css_class (label, "error"));

  gtk_editable_set_text (GTK_EDITABLE (entry), "dataloader=0");
  g_signal_emit_by_name (entry, "activate");
  WAIT_FOR (ks_critical_path_page_get_path (page) != NULL && ks_critical_path_page_get_path (page) != old);
  label = ks_test_find_label (GTK_WIDGET (page), "With dataloader=0, this step would take");
  g_assert_nonnull (label);
  g_test_message ("%s", gtk_label_get_text (GTK_LABEL (label)));
  g_assert_nonnull (strstr (gtk_label_get_text (GTK_LABEL (label)), after));
  g_assert_cmpint (ks_critical_path_page_get_path (page) != NULL, ==, TRUE);
  g_assert_cmpint (ks_critical_path_get_steps (ks_critical_path_page_get_path (page), &n)[0].predicted_ns, ==,
                   steps[0].predicted_ns);

  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int   argc,
      char *argv[])
{
  if (!ks_test_init_gtk (&argc, &argv))
    return 77;
  screenshot_dir = (char *)g_getenv ("KS_TEST_SCREENSHOT_DIR");

  g_test_add_func ("/app/pages/critical-path/page-and-outline", test_page_and_outline);
  g_test_add_func ("/app/pages/critical-path/what-if-editor", test_what_if_editor);

  return g_test_run ();
}
