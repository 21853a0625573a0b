/* test-window-first-minute.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* What a new user meets in the window's first minute, under Xvfb with
 * G_DEBUG=fatal-criticals: the Preferences and the remembered recording
 * options of a program run from the build tree, the side panel's tabs,
 * the keyboard through the Gaps list, an Nsight export's CPU samples,
 * the record dialog's output file, the loading page of a launch with a
 * file, the icons, and the Gaps page and Compare view at 800×600. */

#include "config.h"

#include <adwaita.h>
#include <glib/gstdio.h>
#include <string.h>

#include "ks-application.h"
#include "ks-compare-view.h"
#include "ks-preferences-window.h"
#include "ks-record-dialog.h"
#include "ks-selection-page.h"
#include "ks-test-gtk.h"
#include "ks-timeline.h"
#include "ks-window.h"
#include "pages/ks-gaps-page.h"

#ifdef HAVE_XTST
#include <gdk/x11/gdkx.h>
#include <X11/extensions/XTest.h>
#endif

#define LB_FILE "loader_bound.pt.trace.json.gz"

#define WAIT_FOR(cond) KS_TEST_WAIT_FOR (cond, 30000)

#define CHILD(dialog, name) \
  gtk_widget_get_template_child (GTK_WIDGET (dialog), KS_TYPE_RECORD_DIALOG, (name))

static char *screenshot_dir;

static GFile *
fixture (const char *name)
{
  g_autofree char *path = g_build_filename (g_getenv ("KS_FIXTURES_DIR"), name, NULL);

  return g_file_new_for_path (path);
}

/* The window's content as a texture, as the screen shows it. */
static GdkTexture *
render (GtkWidget *widget)
{
  g_autoptr(GdkPaintable) paintable = NULL;
  g_autoptr(GtkSnapshot) snapshot = NULL;
  g_autoptr(GskRenderNode) node = NULL;

  if (ADW_IS_APPLICATION_WINDOW (widget))
    widget = adw_application_window_get_content (ADW_APPLICATION_WINDOW (widget));
  paintable = gtk_widget_paintable_new (widget);
  snapshot = gtk_snapshot_new ();
  gdk_paintable_snapshot (paintable, snapshot, gtk_widget_get_width (widget), gtk_widget_get_height (widget));
  node = gtk_snapshot_free_to_node (g_steal_pointer (&snapshot));
  g_assert_nonnull (node);
  return gsk_renderer_render_texture (gtk_native_get_renderer (gtk_widget_get_native (widget)), node,
                                      &GRAPHENE_RECT_INIT (0, 0, gtk_widget_get_width (widget),
                                                           gtk_widget_get_height (widget)));
}

static void
save_screenshot (GtkWidget  *widget,
                 const char *name)
{
  g_autoptr(GdkTexture) texture = NULL;
  g_autofree char *path = NULL;

  if (screenshot_dir == NULL)
    return;
  texture = render (widget);
  path = g_build_filename (screenshot_dir, name, NULL);
  gdk_texture_save_to_png (texture, path);
}

static KsApplication *application;

/* The window's main stack: empty, loading, trace. */
static GtkStack *
find_main_stack (GtkWidget *root)
{
  if (GTK_IS_STACK (root) && gtk_stack_get_child_by_name (GTK_STACK (root), "loading") != NULL)
    return GTK_STACK (root);
  for (GtkWidget *c = gtk_widget_get_first_child (root); c != NULL; c = gtk_widget_get_next_sibling (c))
    {
      GtkStack *found = find_main_stack (c);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* A window of the application, which gives it its style sheet and icons
 * as the program's windows have them. */
static KsWindow *
open_window (GFile *file,
             int    width,
             int    height)
{
  KsWindow *window = ks_window_new (GTK_APPLICATION (application));

  gtk_window_set_default_size (GTK_WINDOW (window), width, height);
  gtk_window_present (GTK_WINDOW (window));
  ks_window_open (window, file);
  WAIT_FOR (ks_window_get_session (window) != NULL);
  WAIT_FOR (ks_session_get_analysis (ks_window_get_session (window)) != NULL);
  WAIT_FOR (!gtk_stack_get_transition_running (find_main_stack (GTK_WIDGET (window))));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  return window;
}

static KsApplication *
new_application (void)
{
  KsApplication *app = ks_application_new ();
  g_autoptr(GError) error = NULL;

  g_application_set_flags (G_APPLICATION (app), G_APPLICATION_HANDLES_OPEN | G_APPLICATION_NON_UNIQUE);
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, &error));
  g_assert_no_error (error);
  return app;
}

static GtkWidget *
find_toplevel (GType type)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GObject) w = g_list_model_get_item (toplevels, i);

      if (G_TYPE_CHECK_INSTANCE_TYPE (w, type))
        return GTK_WIDGET (w);
    }
  return NULL;
}

static GtkWidget *
find_row (GtkWidget  *root,
          GType       type,
          const char *title)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (root, type) && ADW_IS_PREFERENCES_ROW (root) &&
      g_strcmp0 (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (root)), title) == 0)
    return root;
  for (GtkWidget *c = gtk_widget_get_first_child (root); c != NULL; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_row (c, type, title);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* Run from the build tree with no GSETTINGS_SCHEMA_DIR (main() unsets
 * it), as the README's ./_build/src/app/kinescope runs: Ctrl+, opens
 * the Preferences on the schema compiled in the build tree (a critical
 * aborted here before), a change takes effect in the open window, and
 * the record dialog remembers its options. */
static void
test_preferences_from_build_tree (void)
{
  GtkApplication *app = GTK_APPLICATION (application);
  g_autoptr(GFile) file = fixture (LB_FILE);
  g_auto(GStrv) accels = NULL;
  GSettings *settings = ks_application_get_settings ();
  KsWindow *window;
  GtkWidget *prefs, *order_row, *gaps_page;
  KsRecordDialog *dialog;
  g_autofree char *tmp = g_dir_make_tmp ("ks-record-XXXXXX", NULL);

  g_assert_null (g_getenv ("GSETTINGS_SCHEMA_DIR"));
  g_assert_nonnull (settings);
  g_assert_cmpstr (g_settings_get_string (settings, "gap-order"), ==, "duration");

  window = ks_window_new (GTK_APPLICATION (app));
  gtk_window_set_default_size (GTK_WINDOW (window), 1400, 860);
  gtk_window_present (GTK_WINDOW (window));
  ks_window_open (window, file);
  WAIT_FOR (ks_window_get_session (window) != NULL);
  WAIT_FOR (ks_session_get_analysis (ks_window_get_session (window)) != NULL);
  gaps_page = ks_window_get_page (window, "gaps");
  g_assert_false (ks_gaps_page_get_order_by_time (KS_GAPS_PAGE (gaps_page)));

  /* Ctrl+, is the application's preferences action */
  accels = gtk_application_get_accels_for_action (GTK_APPLICATION (app), "app.preferences");
  g_assert_true (g_strv_contains ((const char * const *) accels, "<Control>comma"));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "app.preferences", NULL));
  prefs = find_toplevel (KS_TYPE_PREFERENCES_WINDOW);
  g_assert_nonnull (prefs);
  g_assert_true (ks_preferences_window_get_settings (KS_PREFERENCES_WINDOW (prefs)) == settings);
  gtk_test_widget_wait_for_draw (prefs);

  /* "In time order": the key, and the open window's Gaps list */
  order_row = find_row (prefs, ADW_TYPE_COMBO_ROW, "Gap List Order");
  g_assert_nonnull (order_row);
  adw_combo_row_set_selected (ADW_COMBO_ROW (order_row), 1);
  g_assert_cmpstr (g_settings_get_string (settings, "gap-order"), ==, "time");
  g_assert_true (ks_gaps_page_get_order_by_time (KS_GAPS_PAGE (gaps_page)));
  gtk_window_destroy (GTK_WINDOW (prefs));

  /* The record dialog's options are there the next time */
  dialog = ks_record_dialog_new (GTK_WINDOW (window));
  gtk_window_present (GTK_WINDOW (dialog));
  gtk_editable_set_text (GTK_EDITABLE (CHILD (dialog, "command_entry")),
                         "python3 train.py --epochs 1");
  gtk_editable_set_text (GTK_EDITABLE (CHILD (dialog, "directory_entry")),
                         tmp);
  /* Start, with no one to run it: the options are kept, the dialog closes */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (dialog), "record.start", NULL));
  g_assert_cmpstr (g_settings_get_string (settings, "record-command"), ==, "python3 train.py --epochs 1");
  g_assert_cmpstr (g_settings_get_string (settings, "record-directory"), ==, tmp);

  dialog = ks_record_dialog_new (GTK_WINDOW (window));
  gtk_window_present (GTK_WINDOW (dialog));
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (CHILD (dialog, "command_entry"))),
                   ==, "python3 train.py --epochs 1");
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (CHILD (dialog, "directory_entry"))),
                   ==, tmp);
  gtk_window_destroy (GTK_WINDOW (dialog));

  g_settings_reset (settings, "gap-order");
  g_settings_reset (settings, "record-command");
  g_settings_reset (settings, "record-directory");
  gtk_window_destroy (GTK_WINDOW (window));
  g_rmdir (tmp);
}

/* Whether @tab lies wholly in the visible part of the tab bar. */
static gboolean
tab_in_view (GtkWidget *tab,
             GtkWidget *switcher)
{
  GtkScrolledWindow *scrolled = GTK_SCROLLED_WINDOW (gtk_widget_get_ancestor (switcher, GTK_TYPE_SCROLLED_WINDOW));
  GtkAdjustment *hadj = gtk_scrolled_window_get_hadjustment (scrolled);
  graphene_rect_t b;

  g_assert_true (gtk_widget_compute_bounds (tab, switcher, &b));
  return b.origin.x >= gtk_adjustment_get_value (hadj) - 0.5 &&
         b.origin.x + b.size.width <= gtk_adjustment_get_value (hadj) + gtk_adjustment_get_page_size (hadj) + 0.5;
}

/* The side panel's tabs: each shows its whole name, and the page shown,
 * however it was chosen, has its tab in view, not out of sight or cut
 * through its name at the bar's edge. */
static void
test_side_tabs (void)
{
  g_autoptr(GFile) file = fixture (LB_FILE);
  KsWindow *window = open_window (file, 1280, 800);
  GtkWidget *switcher = ks_test_find_descendant (GTK_WIDGET (window), GTK_TYPE_STACK_SWITCHER, NULL);
  GtkWidget *last = NULL;
  guint n_tabs = 0, n_in_view = 0;

  g_assert_nonnull (switcher);
  for (GtkWidget *tab = gtk_widget_get_first_child (switcher); tab != NULL; tab = gtk_widget_get_next_sibling (tab))
    {
      GtkWidget *label = ks_test_find_descendant (tab, GTK_TYPE_LABEL, NULL);
      int label_width;

      if (!gtk_widget_get_visible (tab))
        continue;
      g_assert_nonnull (label);
      gtk_widget_measure (label, GTK_ORIENTATION_HORIZONTAL, -1, NULL, &label_width, NULL, NULL);
      g_test_message ("tab “%s”: %d px for a name of %d px", gtk_label_get_text (GTK_LABEL (label)),
                      gtk_widget_get_width (tab), label_width);
      /* the whole name, and no more than its padding around it */
      g_assert_cmpint (gtk_widget_get_width (label), >=, label_width);
      g_assert_false (pango_layout_is_ellipsized (gtk_label_get_layout (GTK_LABEL (label))));
      g_assert_cmpint (gtk_widget_get_width (tab), <=, label_width + 24);
      n_tabs++;
      n_in_view += tab_in_view (tab, switcher);
      last = tab;
    }
  g_assert_cmpuint (n_tabs, >=, 6);
  /* the five core pages' tabs at least */
  g_assert_cmpuint (n_in_view, >=, 5);
  g_assert_false (tab_in_view (last, switcher));

  /* the Selection page (its tab is the last) shown by ]: its tab in view */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "analysis.next-gap", NULL));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  g_assert_cmpstr (gtk_stack_get_visible_child_name (GTK_STACK (gtk_widget_get_ancestor (ks_window_get_page (window, "selection"), GTK_TYPE_STACK))),
                   ==, "selection");
  g_assert_true (tab_in_view (last, switcher));
  save_screenshot (GTK_WIDGET (window), "first-minute-tabs.png");

  /* and back to the first, from the All Pages menu's action */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.show-page", "s", "summary"));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  g_assert_true (tab_in_view (gtk_widget_get_first_child (switcher), switcher));

  gtk_window_destroy (GTK_WINDOW (window));
}

/* An Nsight export of a C++ program (CloverLeaf, the corpus' real
 * export): its CPU samples are native frames, not "Python samples". The
 * export holds COMPOSITE_EVENTS on three threads (counted with sqlite3:
 * 1512, 16 and 3 samples): three rows, each "CPU samples"; a sampled
 * frame clicked on is a "Sampled Frame" on the Selection page. */
static void
test_nsight_cpu_samples (void)
{
  const char *shared = g_getenv ("KS_SHARED_DIR");
  g_autofree char *path = NULL;
  g_autoptr(GFile) file = NULL;
  KsWindow *window;
  KsSession *session;
  KsTimeline *timeline;
  KsTimelineLayout *layout;
  KsTrace *trace;
  KsSelectionPage *selection;
  guint n_rows = 0;
  guint32 track = KS_NO_INDEX, slice = 0;
  double x, y;

  path = shared ? g_build_filename (shared, "corpus", "pipit", "cloverleaf-nsys",
                                    "perlmutter-cloverleaf-cuda.sqlite", NULL) : NULL;
  if (path == NULL || !g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("the corpus' Nsight export (KS_SHARED_DIR/corpus/pipit) is absent");
      return;
    }
  file = g_file_new_for_path (path);
  window = open_window (file, 1400, 860);
  session = ks_window_get_session (window);
  timeline = ks_window_get_timeline (window);
  layout = ks_timeline_get_layout (timeline);
  trace = ks_session_get_trace (session);

  for (guint r = 0; r < ks_timeline_layout_get_n_rows (layout); r++)
    {
      const KsRow *row = ks_timeline_layout_get_row (layout, r);

      g_assert_cmpstr (row->label, !=, "Python samples");
    }
  for (guint32 t = 0; t < trace->n_tracks; t++)
    if (trace->tracks[t].kind == KS_TRACK_SAMPLES)
      {
        const KsRow *row = ks_timeline_layout_get_row (layout, ks_timeline_layout_find_track_row (layout, t));

        g_assert_cmpstr (row->label, ==, "CPU samples");
        n_rows++;
        if (track == KS_NO_INDEX || trace->tracks[t].n_slices > trace->tracks[track].n_slices)
          track = t;
      }
  g_assert_cmpuint (n_rows, ==, 3);

  /* the longest outermost frame of the busiest thread, clicked */
  for (guint32 i = 0; i < trace->tracks[track].n_slices; i++)
    if (trace->tracks[track].depth[i] == 0 &&
        trace->tracks[track].end[i] - trace->tracks[track].start[i] >
        trace->tracks[track].end[slice] - trace->tracks[track].start[slice])
      slice = i;
  ks_timeline_reveal_track (timeline, track);
  ks_session_fit (session, trace->tracks[track].start[slice], trace->tracks[track].end[slice]);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (timeline));
  g_assert_true (ks_timeline_get_slice_point (timeline, track, slice, &x, &y));
  ks_test_click_timeline (GTK_WIDGET (timeline), 1, x, y);
  selection = KS_SELECTION_PAGE (ks_window_get_page (window, "selection"));
  g_assert_nonnull (ks_selection_page_lookup_value (selection, "Sampled Frame", "Function"));
  g_assert_null (ks_selection_page_lookup_value (selection, "Python Frame", "Function"));

  gtk_window_destroy (GTK_WINDOW (window));
}

static GtkWidget *
find_icon_button (GtkWidget  *root,
                  const char *icon_name)
{
  if (GTK_IS_BUTTON (root) && g_strcmp0 (gtk_button_get_icon_name (GTK_BUTTON (root)), icon_name) == 0)
    return root;
  for (GtkWidget *c = gtk_widget_get_first_child (root); c != NULL; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_icon_button (c, icon_name);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static gboolean
args_have (char       **args,
           const char  *option,
           const char  *value)
{
  for (guint i = 0; args[i] != NULL; i++)
    if (g_str_equal (args[i], option) && (value == NULL || g_strcmp0 (args[i + 1], value) == 0))
      return TRUE;
  return FALSE;
}

/* The record dialog says where the recording goes: the working folder's
 * first free reportN.kscope (where kinescope-cli record would write it
 * unasked), a typed name, or one chosen in the file chooser; a typed
 * name of an existing file is refused rather than replaced. */
static void
test_record_output (void)
{
  g_autofree char *tmp = g_dir_make_tmp ("ks-record-XXXXXX", NULL);
  g_autofree char *other = g_dir_make_tmp ("ks-record-XXXXXX", NULL);
  g_autofree char *report1 = g_build_filename (tmp, "report1.kscope", NULL);
  g_autofree char *report2 = g_build_filename (tmp, "report2.kscope", NULL);
  g_autofree char *typed = g_build_filename (tmp, "baseline.kscope", NULL);
  g_autofree char *other1 = g_build_filename (other, "report1.kscope", NULL);
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) args = NULL;
  KsRecordDialog *dialog;
  GtkWidget *output, *chooser;

  g_assert_true (g_file_set_contents (report1, "", 0, NULL));
  dialog = ks_record_dialog_new (NULL);
  gtk_window_present (GTK_WINDOW (dialog));
  output = GTK_WIDGET (CHILD (dialog, "output_entry"));
  gtk_editable_set_text (GTK_EDITABLE (CHILD (dialog, "command_entry")), "python3 train.py");

  /* the folder's next free name, shown and passed on */
  gtk_editable_set_text (GTK_EDITABLE (CHILD (dialog, "directory_entry")), tmp);
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (output)), ==, report2);
  args = ks_record_dialog_build_arguments (dialog, &error);
  g_assert_no_error (error);
  g_assert_true (args_have (args, "-o", report2));
  g_assert_false (args_have (args, "--force", NULL));
  g_clear_pointer (&args, g_strfreev);

  /* another folder: its own */
  gtk_editable_set_text (GTK_EDITABLE (CHILD (dialog, "directory_entry")), other);
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (output)), ==, other1);

  /* typed, relative: in the working folder, with the suffix the recorder adds */
  gtk_editable_set_text (GTK_EDITABLE (CHILD (dialog, "directory_entry")), tmp);
  gtk_editable_set_text (GTK_EDITABLE (output), "baseline");
  args = ks_record_dialog_build_arguments (dialog, &error);
  g_assert_no_error (error);
  g_assert_true (args_have (args, "-o", typed));
  g_clear_pointer (&args, g_strfreev);
  /* and kept when the folder changes */
  gtk_editable_set_text (GTK_EDITABLE (CHILD (dialog, "directory_entry")), other);
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (output)), ==, "baseline");
  gtk_editable_set_text (GTK_EDITABLE (CHILD (dialog, "directory_entry")), tmp);

  /* a typed name of a file that exists is refused, not replaced */
  gtk_editable_set_text (GTK_EDITABLE (output), report1);
  g_assert_null (ks_record_dialog_build_arguments (dialog, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS);
  g_assert_nonnull (strstr (error->message, report1));
  g_clear_error (&error);
  gtk_editable_set_text (GTK_EDITABLE (output), "");
  g_assert_null (ks_record_dialog_build_arguments (dialog, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);

  /* the chooser button: a save dialog, named as the entry said;
   * cancelled, the output stays */
  gtk_editable_set_text (GTK_EDITABLE (output), report2);
  g_signal_emit_by_name (find_icon_button (GTK_WIDGET (dialog), "document-save-as-symbolic"), "clicked");
  WAIT_FOR ((chooser = find_toplevel (GTK_TYPE_FILE_CHOOSER_DIALOG)) != NULL);
  g_assert_cmpint (gtk_file_chooser_get_action (GTK_FILE_CHOOSER (chooser)), ==, GTK_FILE_CHOOSER_ACTION_SAVE);
  {
    g_autofree char *name = gtk_file_chooser_get_current_name (GTK_FILE_CHOOSER (chooser));

    g_assert_cmpstr (name, ==, "report2.kscope");
  }
  gtk_dialog_response (GTK_DIALOG (chooser), GTK_RESPONSE_CANCEL);
  WAIT_FOR (find_toplevel (GTK_TYPE_FILE_CHOOSER_DIALOG) == NULL);
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (output)), ==, report2);

  gtk_window_destroy (GTK_WINDOW (dialog));
  g_unlink (report1);
  g_rmdir (tmp);
  g_rmdir (other);
}

static void
window_mapped_cb (GtkWidget  *window,
                  char      **shown)
{
  GtkStack *stack = find_main_stack (window);

  /* what its first frame shows, and whether a transition still fades
   * another page out */
  *shown = g_strdup_printf ("%s%s", gtk_stack_get_visible_child_name (stack),
                            gtk_stack_get_transition_running (stack) ? " (in transition)" : "");
}

static void
window_added_cb (GtkApplication  *app,
                 GtkWindow       *window,
                 char           **shown)
{
  g_signal_connect (window, "map", G_CALLBACK (window_mapped_cb), shown);
}

/* kinescope FILE: the window's first frame is the loading page, not the
 * welcome page (which showed, then faded out, while the file loaded). */
static void
test_launch_shows_loading (void)
{
  g_autoptr(GFile) file = fixture (LB_FILE);
  g_autofree char *shown = NULL;
  GtkWindow *window;
  gulong id;

  id = g_signal_connect (application, "window-added", G_CALLBACK (window_added_cb), &shown);
  g_application_open (G_APPLICATION (application), &file, 1, "");
  g_signal_handler_disconnect (application, id);

  WAIT_FOR (shown != NULL);
  g_assert_cmpstr (shown, ==, "loading");
  window = gtk_application_get_active_window (GTK_APPLICATION (application));
  g_assert_true (KS_IS_WINDOW (window));
  WAIT_FOR (ks_window_get_session (KS_WINDOW (window)) != NULL);
  gtk_window_destroy (window);
}

/* kinescope FOLDER over the memory bound: listed and sized in the
 * loader's worker, so the first frame is the loading page too, and the
 * folder opens to the job's Ranks page. */
static void
test_launch_folder_shows_loading (void)
{
  g_autoptr(GFile) folder = fixture ("ddp_gloo_2ranks");
  g_autofree char *shown = NULL;
  GtkWindow *window;
  gulong id;

  g_setenv ("KINESCOPE_FOLDER_MEMORY_MB", "0", TRUE);
  id = g_signal_connect (application, "window-added", G_CALLBACK (window_added_cb), &shown);
  g_application_open (G_APPLICATION (application), &folder, 1, "");
  g_signal_handler_disconnect (application, id);

  window = gtk_application_get_active_window (GTK_APPLICATION (application));
  g_assert_true (KS_IS_WINDOW (window));
  /* nothing of the folder was read yet: the loader's worker lists it */
  g_assert_true (ks_window_get_loading (KS_WINDOW (window)));
  WAIT_FOR (shown != NULL);
  g_assert_cmpstr (shown, ==, "loading");
  WAIT_FOR (!ks_window_get_loading (KS_WINDOW (window)));
  g_assert_nonnull (ks_window_get_summaries (KS_WINDOW (window)));
  g_assert_cmpstr (gtk_stack_get_visible_child_name (find_main_stack (GTK_WIDGET (window))), ==, "job");
  g_unsetenv ("KINESCOPE_FOLDER_MEMORY_MB");
  gtk_window_destroy (window);
}

/* The icon names of the images under @widget that the display's icon
 * theme lacks: GTK draws those as its "image missing" icon. */
static void
collect_missing_icons (GtkWidget *widget,
                       GPtrArray *missing,
                       guint     *n_icons)
{
  GtkIconTheme *theme = gtk_icon_theme_get_for_display (gtk_widget_get_display (widget));

  if (GTK_IS_IMAGE (widget) && gtk_image_get_storage_type (GTK_IMAGE (widget)) == GTK_IMAGE_ICON_NAME)
    {
      const char *name = gtk_image_get_icon_name (GTK_IMAGE (widget));

      (*n_icons)++;
      if (!gtk_icon_theme_has_icon (theme, name))
        g_ptr_array_add (missing, g_strdup (name));
    }
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c != NULL; c = gtk_widget_get_next_sibling (c))
    collect_missing_icons (c, missing, n_icons);
}

/* Every image of the window (the Summary page's "Analysing…" among them)
 * and of the Preferences has its icon: Debian 12's Adwaita has no
 * utilities-system-monitor-symbolic, the application ships it. */
static void
test_icons (void)
{
  g_autoptr(GFile) file = fixture (LB_FILE);
  KsWindow *window = open_window (file, 1280, 800);
  g_autoptr(GPtrArray) missing = g_ptr_array_new_with_free_func (g_free);
  GtkWidget *summary = ks_window_get_page (window, "summary");
  GtkWidget *prefs;
  guint n_icons = 0;

  g_assert_nonnull (ks_test_find_descendant (summary, ADW_TYPE_STATUS_PAGE, NULL));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "app.preferences", NULL));
  prefs = find_toplevel (KS_TYPE_PREFERENCES_WINDOW);
  g_assert_nonnull (prefs);

  collect_missing_icons (GTK_WIDGET (window), missing, &n_icons);
  collect_missing_icons (prefs, missing, &n_icons);
  for (guint i = 0; i < missing->len; i++)
    g_test_message ("no icon “%s”", (char *) g_ptr_array_index (missing, i));
  g_assert_cmpuint (n_icons, >=, 10);
  g_assert_cmpuint (missing->len, ==, 0);

  gtk_window_destroy (GTK_WINDOW (prefs));
  gtk_window_destroy (GTK_WINDOW (window));
}

#ifdef HAVE_XTST
static void
press_key (GtkWidget *widget,
           guint      keyval)
{
  Display *xd = gdk_x11_display_get_xdisplay (gtk_widget_get_display (widget));
  KeyCode code = XKeysymToKeycode (xd, keyval);

  g_assert_cmpuint (code, !=, 0);
  XTestFakeKeyEvent (xd, code, True, CurrentTime);
  XTestFakeKeyEvent (xd, code, False, CurrentTime);
  XFlush (xd);
}

static gboolean
focus_in (GtkWindow *window,
          GtkWidget *ancestor)
{
  GtkWidget *focus = gtk_window_get_focus (window);

  return focus != NULL && (focus == ancestor || gtk_widget_is_ancestor (focus, ancestor));
}
#endif

/* The Gaps list is one Tab stop: the arrows move between its rows, Tab
 * leaves it, and a few more reach the timeline (Tab walked the 133 rows
 * one at a time, and never got there). Keys go through the X server. */
static void
test_gaps_list_one_tab_stop (void)
{
#ifdef HAVE_XTST
  g_autoptr(GFile) file = NULL;
  KsWindow *window;
  GtkWidget *view, *timeline, *row_focus;
  Display *xd;
  guint presses = 0;

  if (!GDK_IS_X11_DISPLAY (gdk_display_get_default ()))
    {
      g_test_skip ("key presses are synthesised with XTEST, which needs X11");
      return;
    }
  file = fixture (LB_FILE);
  window = open_window (file, 1400, 860);
  timeline = GTK_WIDGET (ks_window_get_timeline (window));
  /* Without a window manager nobody gives the window the keyboard. */
  xd = gdk_x11_display_get_xdisplay (gtk_widget_get_display (GTK_WIDGET (window)));
  XSetInputFocus (xd, gdk_x11_surface_get_xid (gtk_native_get_surface (GTK_NATIVE (window))),
                  RevertToParent, CurrentTime);
  WAIT_FOR (gtk_window_is_active (GTK_WINDOW (window)));

  /* the page is made and filled when first shown */
  ks_window_show_page (window, "gaps");
  ks_test_wait_pages_filled (GTK_WIDGET (window));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  view = ks_test_find_descendant (ks_window_get_page (window, "gaps"), GTK_TYPE_COLUMN_VIEW, NULL);
  g_assert_nonnull (view);
  g_assert_true (gtk_widget_child_focus (view, GTK_DIR_TAB_FORWARD));
  g_assert_true (focus_in (GTK_WINDOW (window), view));

  /* Down: the next row, still in the list */
  row_focus = gtk_window_get_focus (GTK_WINDOW (window));
  press_key (view, GDK_KEY_Down);
  WAIT_FOR (gtk_window_get_focus (GTK_WINDOW (window)) != row_focus);
  g_assert_true (focus_in (GTK_WINDOW (window), view));

  /* Tab: out of the list at once */
  press_key (view, GDK_KEY_Tab);
  WAIT_FOR (!focus_in (GTK_WINDOW (window), view));

  /* and on to the timeline, past the rest of the window, without going
   * through the list's rows */
  while (!focus_in (GTK_WINDOW (window), timeline) && presses < 40)
    {
      GtkWidget *before = gtk_window_get_focus (GTK_WINDOW (window));

      press_key (view, GDK_KEY_Tab);
      presses++;
      WAIT_FOR (gtk_window_get_focus (GTK_WINDOW (window)) != before);
      g_assert_false (focus_in (GTK_WINDOW (window), view) && !focus_in (GTK_WINDOW (window), timeline));
    }
  g_test_message ("the timeline after %u more Tabs", presses);
  g_assert_true (focus_in (GTK_WINDOW (window), timeline));

  gtk_window_destroy (GTK_WINDOW (window));
#else
  g_test_skip ("built without XTEST (libxtst-dev)");
#endif
}

/* The first line of @label's text as laid out. */
static char *
first_line (GtkLabel *label)
{
  PangoLayout *layout = gtk_label_get_layout (label);
  PangoLayoutLine *line = pango_layout_get_line_readonly (layout, 0);
  const char *text = pango_layout_get_text (layout);

  return g_strstrip (g_strndup (text + line->start_index, line->length));
}

/* At 800×600 the Gaps page's columns fit its 300 px, and the cause reads
 * "DataLoader:" whole on its first line, the rest on a second (it read
 * "DataL… ne", half of it scrolled out of the panel). */
static void
test_small_screen_gap_causes (void)
{
  g_autoptr(GFile) file = fixture (LB_FILE);
  KsWindow *window = open_window (file, 800, 600);
  GtkWidget *page = ks_window_get_page (window, "gaps");
  GtkWidget *view, *cause;
  g_autofree char *line = NULL;

  ks_window_show_page (window, "gaps");
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (window)), <=, 800);
  view = ks_test_find_descendant (page, GTK_TYPE_COLUMN_VIEW, NULL);
  /* the largest gap (32.9 ms, the first row) waits for the DataLoader */
  WAIT_FOR ((cause = ks_test_find_label (view, "DataLoader: ")) != NULL && gtk_widget_get_width (cause) > 0);
  g_assert_true (ks_test_columns_fit (page));
  line = first_line (GTK_LABEL (cause));
  g_test_message ("cause “%s”, first line “%s”, %d px", gtk_label_get_text (GTK_LABEL (cause)), line,
                  gtk_widget_get_width (cause));
  g_assert_cmpstr (line, ==, "DataLoader:");
  g_assert_cmpint (pango_layout_get_line_count (gtk_label_get_layout (GTK_LABEL (cause))), ==, 2);
  save_screenshot (GTK_WIDGET (window), "first-minute-800x600-gaps.png");

  gtk_window_destroy (GTK_WINDOW (window));
}

/* At 800×600 the Compare view's tables are in sight: the timelines take
 * a little over half its height, not a fixed 460 px that left the tables
 * under the handle. */
static void
test_small_screen_compare (void)
{
  g_autoptr(GFile) file = fixture (LB_FILE);
  g_autoptr(GFile) other = fixture ("workers_pinned.pt.trace.json.gz");
  g_autofree char *uri = g_file_get_uri (other);
  KsWindow *window = open_window (file, 800, 600);
  KsCompareView *view;
  GtkWidget *table;
  graphene_rect_t bounds;
  int view_height;

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.compare-file", "s", uri));
  WAIT_FOR (ks_window_get_compare_view (window) != NULL);
  view = KS_COMPARE_VIEW (ks_window_get_compare_view (window));
  ks_compare_view_show_page (view, "kernels");
  WAIT_FOR (!gtk_stack_get_transition_running (find_main_stack (GTK_WIDGET (window))));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  table = ks_test_find_descendant (GTK_WIDGET (view), GTK_TYPE_COLUMN_VIEW, "compare-kernels");
  g_assert_nonnull (table);
  WAIT_FOR (gtk_widget_get_mapped (table) && gtk_widget_get_height (table) > 0);
  view_height = gtk_widget_get_height (GTK_WIDGET (view));
  /* the part of the table inside the view (a paned allocates a child
   * its minimum even past its end, clipped) */
  g_assert_true (gtk_widget_compute_bounds (table, GTK_WIDGET (view), &bounds));
  g_test_message ("compare view %d px high, its kernels table from %.0f px", view_height, bounds.origin.y);
  g_assert_cmpint (view_height, <, 600);
  g_assert_cmpfloat (view_height - bounds.origin.y, >=, view_height / 4);
  save_screenshot (GTK_WIDGET (window), "first-minute-800x600-compare.png");

  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int   argc,
      char *argv[])
{
  /* As the README's command runs the program: no schema folder given */
  g_unsetenv ("GSETTINGS_SCHEMA_DIR");

  if (!ks_test_init_gtk (&argc, &argv))
    return 77;

  screenshot_dir = g_strdup (g_getenv ("KS_TEST_SCREENSHOT_DIR"));

  application = new_application ();

  g_test_add_func ("/app/first-minute/preferences-from-build-tree", test_preferences_from_build_tree);
  g_test_add_func ("/app/first-minute/side-tabs", test_side_tabs);
  /* before the record dialog's file chooser has been shown: after it,
   * key presses sent through the X server were seen to miss the window */
  g_test_add_func ("/app/first-minute/gaps-list-one-tab-stop", test_gaps_list_one_tab_stop);
  g_test_add_func ("/app/first-minute/nsight-cpu-samples", test_nsight_cpu_samples);
  g_test_add_func ("/app/first-minute/record-output", test_record_output);
  g_test_add_func ("/app/first-minute/launch-shows-loading", test_launch_shows_loading);
  g_test_add_func ("/app/first-minute/launch-folder-shows-loading", test_launch_folder_shows_loading);
  g_test_add_func ("/app/first-minute/icons", test_icons);
  g_test_add_func ("/app/first-minute/small-screen-gap-causes", test_small_screen_gap_causes);
  g_test_add_func ("/app/first-minute/small-screen-compare", test_small_screen_compare);

  return g_test_run ();
}
