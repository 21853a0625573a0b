/* ks-test-window.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <adwaita.h>

#include "ks-test-gtk.h"
#include "ks-test-window.h"

GFile *
ks_test_fixture (const char *name)
{
  g_autofree char *path = g_build_filename (g_getenv ("KS_FIXTURES_DIR"), name, NULL);

  return g_file_new_for_path (path);
}

void
ks_test_save_screenshot (GtkWidget  *widget,
                         const char *name)
{
  g_autoptr(GdkPaintable) paintable = NULL;
  g_autoptr(GtkSnapshot) snapshot = NULL;
  g_autoptr(GskRenderNode) node = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  g_autofree char *path = NULL;
  const char *screenshot_dir = g_getenv ("KS_TEST_SCREENSHOT_DIR");
  GskRenderer *renderer;

  if (screenshot_dir == NULL)
    return;

  /* A toplevel's paintable is empty: draw its content instead. */
  if (ADW_IS_APPLICATION_WINDOW (widget))
    widget = adw_application_window_get_content (ADW_APPLICATION_WINDOW (widget));
  paintable = gtk_widget_paintable_new (widget);
  snapshot = gtk_snapshot_new ();
  gdk_paintable_snapshot (paintable, snapshot, gtk_widget_get_width (widget), gtk_widget_get_height (widget));
  node = gtk_snapshot_free_to_node (g_steal_pointer (&snapshot));
  if (node == NULL)
    return;
  renderer = gtk_native_get_renderer (gtk_widget_get_native (widget));
  texture = gsk_renderer_render_texture (renderer, node,
                                         &GRAPHENE_RECT_INIT (0, 0, gtk_widget_get_width (widget),
                                                              gtk_widget_get_height (widget)));
  path = g_build_filename (screenshot_dir, name, NULL);
  gdk_texture_save_to_png (texture, path);
}

KsWindow *
ks_test_open_window (const char *name)
{
  g_autoptr(GFile) file = ks_test_fixture (name);
  KsWindow *window = ks_window_new (NULL);

  gtk_window_set_default_size (GTK_WINDOW (window), 1400, 860);
  gtk_window_present (GTK_WINDOW (window));
  ks_window_open (window, file);

  /* The progress page shows at once, before the trace is there. */
  g_assert_true (ks_window_get_loading (window));

  WAIT_FOR (ks_window_get_session (window) != NULL);
  g_assert_false (ks_window_get_loading (window));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  WAIT_FOR (gtk_widget_get_width (GTK_WIDGET (ks_window_get_timeline (window))) > 400);
  return window;
}

KsWindow *
ks_test_open_file (GFile *file)
{
  KsWindow *window = ks_window_new (NULL);

  gtk_window_set_default_size (GTK_WINDOW (window), 1400, 860);
  gtk_window_present (GTK_WINDOW (window));
  ks_window_open (window, file);
  WAIT_FOR (ks_window_get_session (window) != NULL);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  return window;
}

GtkWidget *
ks_test_find_child (GtkWidget  *root,
                    const char *type_name)
{
  if (g_str_equal (G_OBJECT_TYPE_NAME (root), type_name))
    return root;
  for (GtkWidget *c = gtk_widget_get_first_child (root); c != NULL; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = ks_test_find_child (c, type_name);

      if (found != NULL)
        return found;
    }
  return NULL;
}

guint32
ks_test_find_longest (KsTrace    *trace,
                      const char *name,
                      guint32    *track_out)
{
  guint32 id = ks_trace_lookup_string (trace, name);
  guint32 best = KS_NO_INDEX;
  gint64 best_dur = -1;

  g_assert_cmpuint (id, !=, 0);
  for (guint32 t = 0; t < trace->n_tracks; t++)
    for (guint32 i = 0; i < trace->tracks[t].n_slices; i++)
      if (trace->tracks[t].name_id[i] == id && trace->tracks[t].end[i] - trace->tracks[t].start[i] > best_dur)
        {
          best_dur = trace->tracks[t].end[i] - trace->tracks[t].start[i];
          best = i;
          *track_out = t;
        }
  g_assert_cmpuint (best, !=, KS_NO_INDEX);
  return best;
}

void
ks_test_assert_visible (KsSession *session,
                        double     t0,
                        double     t1)
{
  double v0, v1;

  ks_session_get_visible (session, &v0, &v1);
  g_assert_cmpfloat_with_epsilon (v0, t0, MAX (1.0, (t1 - t0) * 1e-6));
  g_assert_cmpfloat_with_epsilon (v1, t1, MAX (1.0, (t1 - t0) * 1e-6));
}
