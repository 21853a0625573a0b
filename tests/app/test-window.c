/* test-window.c: the window as a shell: opening files, loading and its
 * progress, bad files, warnings, drops and recent files, menus, jobs
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <adwaita.h>
#include <glib/gstdio.h>
#include <math.h>

#include "ks-application.h"
#include "ks-format.h"
#include "ks-range-stats.h"
#include "ks-render-cairo.h"
#include "ks-selection-page.h"
#include "ks-test-gtk.h"
#include "ks-test-samples.h"
#include "ks-test-window.h"
#include "ks-json-writer.h"
#include "ks-report.h"
#include "ks-trace-loader.h"
#include "ks-window.h"
#include "pages/ks-ranks-page.h"

#ifdef HAVE_XTST
#include <gdk/x11/gdkx.h>
#include <X11/extensions/XTest.h>
#endif

/* The empty window's list of recent traces. */
static GtkWidget *
find_recent_list (GtkWidget *root)
{
  if (GTK_IS_LIST_BOX (root) && g_strcmp0 (gtk_widget_get_name (root), "recent-list") == 0)
    return root;
  for (GtkWidget *c = gtk_widget_get_first_child (root); c != NULL; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_recent_list (c);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The window's main stack: empty, loading, trace. */
static GtkWidget *
find_main_stack (GtkWidget *root)
{
  if (GTK_IS_STACK (root) && gtk_stack_get_child_by_name (GTK_STACK (root), "loading") != NULL)
    return root;
  for (GtkWidget *c = gtk_widget_get_first_child (root); c != NULL; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_main_stack (c);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static void
test_bad_file (void)
{
  g_autofree char *path = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;
  GListModel *toplevels = gtk_window_get_toplevels ();
  KsWindow *window = ks_window_new (NULL);
  AdwMessageDialog *dialog = NULL;
  int fd;

  fd = g_file_open_tmp ("ks-bad-XXXXXX.json", &path, &error);
  g_assert_no_error (error);
  g_assert_cmpint (write (fd, "{\"traceEvents\": [ {\"ph\": \"X\", \"ts\": ", 37), ==, 37);
  close (fd);
  file = g_file_new_for_path (path);

  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (ks_window_is_empty (window));
  ks_window_open (window, file);
  WAIT_FOR (!ks_window_get_loading (window));
  g_assert_null (ks_window_get_session (window));
  g_assert_true (ks_window_is_empty (window));

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GObject) w = g_list_model_get_item (toplevels, i);

      if (ADW_IS_MESSAGE_DIALOG (w))
        dialog = ADW_MESSAGE_DIALOG (w);
    }
  g_assert_nonnull (dialog);
  {
    g_autofree char *base = g_path_get_basename (path);
    g_autofree char *heading = g_strdup_printf ("Could Not Open “%s”", base);

    g_assert_cmpstr (adw_message_dialog_get_heading (dialog), ==, heading);
    g_assert_cmpuint (strlen (adw_message_dialog_get_body (dialog)), >, 0);
  }

  gtk_window_destroy (GTK_WINDOW (dialog));
  gtk_window_destroy (GTK_WINDOW (window));
  g_unlink (path);
}

static void
test_application_open (void)
{
  g_autoptr(KsApplication) app = ks_application_new ();
  g_autoptr(GError) error = NULL;
  GFile *files[2];
  GList *windows;
  guint n_loaded = 0;

  g_application_set_flags (G_APPLICATION (app), G_APPLICATION_HANDLES_OPEN | G_APPLICATION_NON_UNIQUE);
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, &error));
  g_assert_no_error (error);

  files[0] = ks_test_fixture (LB_FILE);
  files[1] = ks_test_fixture ("seed_cnn.pt.trace.json.gz");
  g_application_open (G_APPLICATION (app), files, 2, "");

  /* Two files, two windows, each with its trace. */
  windows = gtk_application_get_windows (GTK_APPLICATION (app));
  g_assert_cmpuint (g_list_length (windows), ==, 2);
  for (GList *l = windows; l != NULL; l = l->next)
    WAIT_FOR (!ks_window_get_loading (l->data));
  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (app)); l != NULL; l = l->next)
    if (ks_window_get_session (l->data) != NULL)
      n_loaded++;
  g_assert_cmpuint (n_loaded, ==, 2);

  /* The demo trace opens in a new window since both are busy. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (windows->data), "win.open-demo", NULL));
  g_assert_cmpuint (g_list_length (gtk_application_get_windows (GTK_APPLICATION (app))), ==, 3);
  windows = gtk_application_get_windows (GTK_APPLICATION (app));
  WAIT_FOR (ks_window_get_session (windows->data) != NULL);
  {
    g_autofree char *base = g_file_get_basename (ks_window_get_file (windows->data));

    g_assert_cmpstr (base, ==, LB_FILE);
  }

  while ((windows = gtk_application_get_windows (GTK_APPLICATION (app))) != NULL)
    gtk_window_destroy (windows->data);
  g_object_unref (files[0]);
  g_object_unref (files[1]);
}

static gboolean
count_tick_cb (gpointer data)
{
  (*(guint *)data)++;
  return G_SOURCE_CONTINUE;
}

static void
test_load_progress_and_cancel (void)
{
  g_autofree char *path = ks_test_write_big_trace (400000);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  KsWindow *window = ks_window_new (NULL);
  GtkWidget *stack = find_main_stack (GTK_WIDGET (window));
  GListModel *toplevels = gtk_window_get_toplevels ();
  guint n_toplevels, ticks = 0, tick_id;

  gtk_window_present (GTK_WINDOW (window));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  n_toplevels = g_list_model_get_n_items (toplevels);

  /* The main loop keeps running while the file loads: a 10 ms timer
   * fires many times before the trace is there. */
  tick_id = g_timeout_add (10, count_tick_cb, &ticks);
  ks_window_open (window, file);
  g_assert_true (ks_window_get_loading (window));
  g_assert_cmpstr (gtk_stack_get_visible_child_name (GTK_STACK (stack)), ==, "loading");
  WAIT_FOR (!ks_window_get_loading (window));
  g_source_remove (tick_id);
  g_assert_nonnull (ks_window_get_session (window));
  g_assert_cmpuint (ks_session_get_trace (ks_window_get_session (window))->tracks[0].n_slices, >, 0);
  g_assert_cmpuint (ticks, >=, 3);
  g_assert_cmpstr (gtk_stack_get_visible_child_name (GTK_STACK (stack)), ==, "trace");
  gtk_window_destroy (GTK_WINDOW (window));

  /* Cancel: back to the empty window, no trace and no error dialog. */
  window = ks_window_new (NULL);
  stack = find_main_stack (GTK_WIDGET (window));
  gtk_window_present (GTK_WINDOW (window));
  ks_window_open (window, file);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.cancel-load", NULL));
  WAIT_FOR (!ks_window_get_loading (window));
  g_assert_null (ks_window_get_session (window));
  g_assert_true (ks_window_is_empty (window));
  g_assert_cmpstr (gtk_stack_get_visible_child_name (GTK_STACK (stack)), ==, "empty");
  ks_test_spin (100);
  g_assert_cmpuint (g_list_model_get_n_items (toplevels), ==, n_toplevels);

  gtk_window_destroy (GTK_WINDOW (window));
  g_unlink (path);
}

/* The fixture's JSON cut at @bytes, in a file of the test. */
static char *
write_truncated (const char *name,
                 gsize       bytes)
{
  g_autofree char *fixture_path = g_build_filename (g_getenv ("KS_FIXTURES_DIR"), name, NULL);
  g_autoptr(GFile) gz = g_file_new_for_path (fixture_path);
  g_autoptr(GFileInputStream) raw = g_file_read (gz, NULL, NULL);
  g_autoptr(GZlibDecompressor) dec = g_zlib_decompressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP);
  g_autoptr(GInputStream) in = g_converter_input_stream_new (G_INPUT_STREAM (raw), G_CONVERTER (dec));
  g_autofree char *buf = g_malloc (bytes);
  g_autoptr(GError) error = NULL;
  gsize got = 0;
  char *path = NULL;
  int fd;

  g_assert_true (g_input_stream_read_all (in, buf, bytes, &got, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (got, ==, bytes);
  fd = g_file_open_tmp ("ks-truncated-XXXXXX.json", &path, &error);
  g_assert_no_error (error);
  close (fd);
  g_assert_true (g_file_set_contents (path, buf, bytes, NULL));
  return path;
}

static void
test_load_warnings (void)
{
  g_autofree char *path = write_truncated ("seed_cnn.pt.trace.json.gz", 200000);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  /* no stack: no Python frame overlaps the steps */
  g_autoptr(GFile) clean = ks_test_fixture ("mixer_eager.pt.trace.json.gz");
  g_autofree char *cut = g_strdup_printf ("%s: the file was truncated at byte 200000", path);
  KsWindow *window = ks_test_open_file (file);
  GtkWidget *banner = ks_test_find_descendant (GTK_WIDGET (window), GTK_TYPE_REVEALER, "load-warnings");
  GtkWidget *first, *more, *close;
  const char *tooltip;

  g_assert_nonnull (banner);
  g_assert_nonnull (strstr (ks_trace_get_metadata (ks_session_get_trace (ks_window_get_session (window)), "warnings"),
                            "truncated at byte 200000"));
  g_assert_true (gtk_revealer_get_reveal_child (GTK_REVEALER (banner)));
  WAIT_FOR (gtk_revealer_get_child_revealed (GTK_REVEALER (banner)));
  g_assert_true (gtk_widget_get_mapped (banner));
  g_assert_cmpint (gtk_widget_get_height (banner), >, 0);

  /* The first warning in full, the others counted, all in the tooltip. */
  first = ks_test_find_label (banner, cut);
  g_assert_nonnull (first);
  {
    g_auto(GStrv) lines = g_strsplit (ks_trace_get_metadata (ks_session_get_trace (ks_window_get_session (window)),
                                                             "warnings"), "\n", -1);

    g_assert_cmpuint (g_strv_length (lines), ==, 2);
    g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (first)), ==, lines[0]);
  }
  more = ks_test_find_label (banner, "and 1 more warning");
  g_assert_nonnull (more);
  tooltip = gtk_widget_get_tooltip_text (gtk_widget_get_parent (first));
  g_assert_nonnull (tooltip);
  g_assert_nonnull (strstr (tooltip, cut));
  g_assert_nonnull (strstr (tooltip, "flow events without an id or a partner were skipped"));
  ks_test_save_screenshot (GTK_WIDGET (window), "load-warnings.png");

  /* Closed, it stays closed for this trace. */
  close = ks_test_find_descendant (banner, GTK_TYPE_BUTTON, NULL);
  g_assert_nonnull (close);
  g_signal_emit_by_name (close, "clicked");
  g_assert_false (gtk_revealer_get_reveal_child (GTK_REVEALER (banner)));
  WAIT_FOR (!gtk_revealer_get_child_revealed (GTK_REVEALER (banner)));

  /* A trace without warnings: no banner. */
  ks_window_open (window, clean);
  WAIT_FOR (ks_window_get_file (window) != NULL && g_file_equal (ks_window_get_file (window), clean));
  g_assert_null (ks_trace_get_metadata (ks_session_get_trace (ks_window_get_session (window)), "warnings"));
  ks_test_spin (300);
  g_assert_false (gtk_revealer_get_reveal_child (GTK_REVEALER (banner)));
  g_assert_false (gtk_revealer_get_child_revealed (GTK_REVEALER (banner)));
  gtk_window_destroy (GTK_WINDOW (window));

  /* Again with warnings: a new trace shows its banner even after a close. */
  window = ks_test_open_file (file);
  banner = ks_test_find_descendant (GTK_WIDGET (window), GTK_TYPE_REVEALER, "load-warnings");
  g_assert_true (gtk_revealer_get_reveal_child (GTK_REVEALER (banner)));
  gtk_window_destroy (GTK_WINDOW (window));

  window = ks_test_open_file (clean);
  banner = ks_test_find_descendant (GTK_WIDGET (window), GTK_TYPE_REVEALER, "load-warnings");
  g_assert_false (gtk_revealer_get_reveal_child (GTK_REVEALER (banner)));
  g_assert_false (gtk_widget_get_mapped (gtk_revealer_get_child (GTK_REVEALER (banner))));
  gtk_window_destroy (GTK_WINDOW (window));

  g_unlink (path);
}

/* What the analysis leaves out (a 9.2 EB allocation) joins the banner. */
static void
test_analysis_warnings (void)
{
  static const char trace[] =
    "{\"traceEvents\":["
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":10,\"dur\":100,"
    "\"args\":{\"device\":0,\"stream\":7}},"
    "{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":30,"
    "\"args\":{\"Bytes\":9223372036854775807,\"Device Id\":0,\"Device Type\":1,\"Addr\":8192}}]}";
  g_autofree char *path = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;
  KsWindow *window;
  GtkWidget *banner;
  int fd = g_file_open_tmp ("ks-eb-XXXXXX.json", &path, &error);

  g_assert_no_error (error);
  close (fd);
  g_assert_true (g_file_set_contents (path, trace, -1, NULL));
  file = g_file_new_for_path (path);

  window = ks_test_open_file (file);
  banner = ks_test_find_descendant (GTK_WIDGET (window), GTK_TYPE_REVEALER, "load-warnings");
  WAIT_FOR (gtk_revealer_get_reveal_child (GTK_REVEALER (banner)));
  g_assert_nonnull (ks_test_find_label (banner, "1 memory event with an impossible size (over 1 PiB)"));
  gtk_window_destroy (GTK_WINDOW (window));
  g_unlink (path);
}

/* Whether @uri is among the recent files, added or touched at @since
 * (seconds since the epoch: the list keeps whole seconds) or later. */
static gboolean
recent_since (const char *uri,
              gint64      since)
{
  GtkRecentInfo *info = gtk_recent_manager_lookup_item (gtk_recent_manager_get_default (), uri, NULL);
  gboolean ret;

  if (info == NULL)
    return FALSE;
  ret = g_date_time_to_unix (gtk_recent_info_get_modified (info)) >= since;
  gtk_recent_info_unref (info);
  return ret;
}

static void
test_drop_and_recent (void)
{
  g_autoptr(GFile) file = ks_test_fixture ("seed_cnn.pt.trace.json.gz");
  g_autofree char *uri = g_file_get_uri (file);
  KsWindow *window = ks_window_new (NULL);
  GtkEventController *target = NULL;
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (GTK_WIDGET (window));
  g_autoptr(GSList) list = g_slist_append (NULL, file);
  GValue value = G_VALUE_INIT;
  gboolean handled = FALSE;
  gint64 dropped_at = g_get_real_time () / G_USEC_PER_SEC;

  gtk_window_present (GTK_WINDOW (window));
  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GtkEventController) c = g_list_model_get_item (controllers, i);

      if (GTK_IS_DROP_TARGET (c))
        target = c;
    }
  g_assert_nonnull (target);

  /* Dropping a file list opens the first file in this window. */
  g_value_init (&value, GDK_TYPE_FILE_LIST);
  g_value_take_boxed (&value, gdk_file_list_new_from_list (list));
  g_signal_emit_by_name (target, "drop", &value, 100.0, 100.0, &handled);
  g_value_unset (&value);
  g_assert_true (handled);
  WAIT_FOR (ks_window_get_session (window) != NULL);
  g_assert_true (g_file_equal (ks_window_get_file (window), file));

  /* It is now a recent file, once drawn, listed in a new empty window. */
  WAIT_FOR (recent_since (uri, dropped_at));
  gtk_window_destroy (GTK_WINDOW (window));

  window = ks_window_new (NULL);
  gtk_window_present (GTK_WINDOW (window));
  {
    GtkWidget *list_box = find_recent_list (GTK_WIDGET (window));
    GtkListBoxRow *row;

    g_assert_nonnull (list_box);
    WAIT_FOR (gtk_list_box_get_row_at_index (GTK_LIST_BOX (list_box), 0) != NULL);
    row = gtk_list_box_get_row_at_index (GTK_LIST_BOX (list_box), 0);
    g_assert_cmpstr (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)), ==, "seed_cnn.pt.trace.json.gz");

    /* Activating it opens the trace. */
    g_signal_emit_by_name (list_box, "row-activated", row);
    WAIT_FOR (ks_window_get_session (window) != NULL);
    g_assert_true (g_file_equal (ks_window_get_file (window), file));
  }
  gtk_window_destroy (GTK_WINDOW (window));
}

/* Opens each ks_test_fixture (and, where the shared corpus is there, an Nsight
 * export, a 2021 TensorBoard plugin trace and a CPU-only trace), goes
 * through every side page, selects a slice, steps to a gap, fits, hides
 * the side panel and closes: a GTK warning or critical on the way fails
 * the test (g_test_init makes them fatal). */
static void
test_every_fixture (void)
{
  const char *fixtures[] = {
    "loader_bound.pt.trace.json.gz", "gpt_3steps.pt.trace.json.gz", "seed_cnn.pt.trace.json.gz",
    "workers_pinned.pt.trace.json.gz", "small_mlp_60steps.kscope",
  };
  const char *corpus[] = {
    "pipit/cloverleaf-nsys/perlmutter-cloverleaf-cuda.sqlite",
    "kineto/tb_plugin_samples_2021-06/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz",
    "hta/cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz",
  };
  const char *pages[] = { "summary", "steps", "gaps", "operators", "kernels", "memory", "tensor-cores", "queue",
                          "memcpy-bandwidth", "kernel-sequences", "gpu-annotations", "roofline", "selection" };
  g_autoptr(GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);
  const char *shared = g_getenv ("KS_SHARED_DIR");

  for (guint i = 0; i < G_N_ELEMENTS (fixtures); i++)
    g_ptr_array_add (paths, g_build_filename (g_getenv ("KS_FIXTURES_DIR"), fixtures[i], NULL));
  for (guint i = 0; shared != NULL && i < G_N_ELEMENTS (corpus); i++)
    {
      char *path = g_build_filename (shared, "corpus", corpus[i], NULL);

      if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
        g_ptr_array_add (paths, path);
      else
        {
          g_test_message ("%s is not there: skipped", path);
          g_free (path);
        }
    }

  for (guint f = 0; f < paths->len; f++)
    {
      g_autoptr(GFile) file = g_file_new_for_path (paths->pdata[f]);
      KsWindow *window = ks_window_new (NULL);
      KsSession *session;
      KsTrace *trace;

      g_test_message ("%s", (char *)paths->pdata[f]);
      gtk_window_set_default_size (GTK_WINDOW (window), 1200, 800);
      gtk_window_present (GTK_WINDOW (window));
      ks_window_open (window, file);
      WAIT_FOR (ks_window_get_session (window) != NULL && !ks_window_get_loading (window));
      session = ks_window_get_session (window);
      trace = ks_session_get_trace (session);
      WAIT_FOR (ks_session_get_analysis (session) != NULL);

      for (guint p = 0; p < G_N_ELEMENTS (pages); p++)
        {
          ks_window_show_page (window, pages[p]);
          gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
        }
      for (guint32 t = 0; t < trace->n_tracks; t++)
        if (trace->tracks[t].n_slices > 0)
          {
            ks_session_select_slice (session, t, trace->tracks[t].n_slices / 2);
            break;
          }
      gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
      gtk_widget_activate_action (GTK_WIDGET (window), "analysis.next-gap", NULL);
      gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
      g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.fit-all", NULL));
      g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.toggle-side-panel", NULL));
      gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
      gtk_window_destroy (GTK_WINDOW (window));
      ks_test_spin (50);
    }
}

/* The main menu's zoom items say what they go back and forward in and
 * show their keys. */
static void
test_menu_accels (void)
{
  KsWindow *window = ks_window_new (NULL);
  GtkWidget *button = ks_test_find_descendant (GTK_WIDGET (window), GTK_TYPE_MENU_BUTTON, "primary-menu-button");
  GMenuModel *menu;
  guint found = 0;

  g_assert_nonnull (button);
  menu = ks_test_open_menu (GTK_MENU_BUTTON (button));
  g_assert_nonnull (menu);

  for (int s = 0; s < g_menu_model_get_n_items (menu); s++)
    {
      g_autoptr(GMenuModel) section = g_menu_model_get_item_link (menu, s, G_MENU_LINK_SECTION);

      for (int i = 0; section != NULL && i < g_menu_model_get_n_items (section); i++)
        {
          g_autofree char *action = NULL;
          g_autofree char *label = NULL;
          g_autofree char *accel = NULL;

          g_menu_model_get_item_attribute (section, i, G_MENU_ATTRIBUTE_ACTION, "s", &action);
          g_menu_model_get_item_attribute (section, i, G_MENU_ATTRIBUTE_LABEL, "s", &label);
          g_menu_model_get_item_attribute (section, i, "accel", "s", &accel);
          if (g_strcmp0 (action, "win.back") == 0)
            {
              g_assert_cmpstr (label, ==, "Zoom _Back");
              g_assert_cmpstr (accel, ==, "<Alt>Left");
              found++;
            }
          else if (g_strcmp0 (action, "win.forward") == 0)
            {
              g_assert_cmpstr (label, ==, "Zoom _Forward");
              g_assert_cmpstr (accel, ==, "<Alt>Right");
              found++;
            }
          else if (g_strcmp0 (action, "win.fit-all") == 0)
            {
              g_assert_cmpstr (accel, ==, "<Control>0");
              found++;
            }
          else if (g_strcmp0 (action, "win.toggle-side-panel") == 0)
            {
              g_assert_cmpstr (accel, ==, "F9");
              found++;
            }
        }
    }
  g_assert_cmpuint (found, ==, 4);

  /* The open menu reads them as a user does, "Ctrl+0" and "F9". */
  gtk_window_present (GTK_WINDOW (window));
  gtk_menu_button_popup (GTK_MENU_BUTTON (button));
  ks_test_spin (200);
  {
    GtkWidget *popover = GTK_WIDGET (gtk_menu_button_get_popover (GTK_MENU_BUTTON (button)));

    g_assert_nonnull (ks_test_find_label (popover, "Ctrl+0"));
    g_assert_nonnull (ks_test_find_label (popover, "F9"));
    g_assert_nonnull (ks_test_find_label (popover, "Alt+"));
    gtk_menu_button_popdown (GTK_MENU_BUTTON (button));
  }
  gtk_window_destroy (GTK_WINDOW (window));
}

typedef struct
{
  guint paints;
  guint paints_at_session;
  guint paints_at_analysis;
  gboolean analysed;
} FrameOrder;

static void
frame_order_paint_cb (GdkFrameClock *clock,
                      FrameOrder    *order)
{
  order->paints++;
}

static void
frame_order_analysis_cb (KsSession  *session,
                         GParamSpec *pspec,
                         FrameOrder *order)
{
  if (ks_session_get_analysis (session) != NULL && !order->analysed)
    {
      order->analysed = TRUE;
      order->paints_at_analysis = order->paints;
    }
}

static void
frame_order_session_cb (KsWindow   *window,
                        GParamSpec *pspec,
                        FrameOrder *order)
{
  order->paints_at_session = order->paints;
  g_signal_connect (ks_window_get_session (window), "notify::analysis",
                    G_CALLBACK (frame_order_analysis_cb), order);
}

/* The timeline is drawn before the analysis fills the pages, even for a
 * trace whose analysis takes less than a frame. */
static void
test_analysis_after_first_frame (void)
{
  g_autoptr(GString) json = g_string_new ("{\"traceEvents\":[");
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;
  g_autoptr(GFile) file = NULL;
  FrameOrder order = { 0 };
  KsWindow *window;
  GdkFrameClock *clock;
  int fd;

  for (guint i = 0; i < 20; i++)
    g_string_append_printf (json, "%s{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k%u\",\"pid\":0,\"tid\":7,"
                            "\"ts\":%u,\"dur\":5,\"args\":{\"device\":0,\"stream\":7}}", i ? "," : "", i, 10 + 20 * i);
  g_string_append (json, "]}");
  fd = g_file_open_tmp ("ks-first-frame-XXXXXX.json", &path, &error);
  g_assert_no_error (error);
  close (fd);
  g_assert_true (g_file_set_contents (path, json->str, json->len, NULL));
  file = g_file_new_for_path (path);

  window = ks_window_new (NULL);
  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 700);
  gtk_window_present (GTK_WINDOW (window));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  clock = gtk_widget_get_frame_clock (GTK_WIDGET (window));
  g_assert_nonnull (clock);
  g_signal_connect (clock, "after-paint", G_CALLBACK (frame_order_paint_cb), &order);
  g_signal_connect (window, "notify::session", G_CALLBACK (frame_order_session_cb), &order);

  ks_window_open (window, file);
  WAIT_FOR (order.analysed);
  g_test_message ("paints when the trace was set: %u, when the analysis came: %u",
                  order.paints_at_session, order.paints_at_analysis);
  g_assert_cmpuint (order.paints_at_analysis, >, order.paints_at_session);

  g_signal_handlers_disconnect_by_data (clock, &order);
  g_signal_handlers_disconnect_by_data (ks_window_get_session (window), &order);
  g_signal_handlers_disconnect_by_data (window, &order);
  gtk_window_destroy (GTK_WINDOW (window));
  g_unlink (path);
}

/* The GtkColumnView under @root. */
static GtkColumnView *
find_column_view (GtkWidget *root)
{
  return GTK_COLUMN_VIEW (ks_test_find_descendant (root, GTK_TYPE_COLUMN_VIEW, NULL));
}

/* A folder of two ranks over the memory bound (forced to 0 MiB) opens to
 * the Ranks page from summaries, holding no trace; activating a rank
 * loads its events alone and shows its timeline, the side panel's Ranks
 * page saying which rank is loaded; activating the other there swaps
 * them. */
static void
test_job_summaries (void)
{
  g_autofree char *dir = g_dir_make_tmp ("ks-job-XXXXXX", NULL);
  g_autoptr(GFile) folder = g_file_new_for_path (dir);
  KsWindow *window;
  GtkWidget *stack, *job_page, *side_page;
  KsRankSummaries *summaries;
  KsTrace *trace;
  guint n;

  for (guint k = 0; k < 2; k++)
    {
      g_autofree char *name = g_strdup_printf ("rank-%u.json", k);
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_autofree char *json = g_strdup_printf (
        "{\"schemaVersion\": 1, \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": %u, \"world_size\": 2},\n"
        " \"traceEvents\": [\n"
        "  {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#1\", \"pid\": 10, \"tid\": 10, \"ts\": 1000, \"dur\": 500},\n"
        "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\", \"pid\": 0, \"tid\": 7, \"ts\": 1100, \"dur\": %u,\n"
        "   \"args\": {\"device\": 0, \"stream\": 7}}]}\n", k, 100 + 50 * k);

      g_assert_true (g_file_set_contents (path, json, -1, NULL));
    }
  /* a trace of the folder that names no rank: said, and left out */
  {
    g_autofree char *stray = g_build_filename (dir, "stray.json", NULL);

    g_assert_true (g_file_set_contents (stray, "{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"a\", "
                                               "\"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 2}]}", -1, NULL));
  }
  g_setenv ("KINESCOPE_FOLDER_MEMORY_MB", "0", TRUE);

  window = ks_window_new (NULL);
  gtk_window_set_default_size (GTK_WINDOW (window), 1400, 860);
  gtk_window_present (GTK_WINDOW (window));
  stack = find_main_stack (GTK_WIDGET (window));
  ks_window_open (window, folder);
  g_assert_true (ks_window_get_loading (window));
  WAIT_FOR (!ks_window_get_loading (window));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));

  /* the Ranks page, from summaries: no trace is held */
  g_assert_cmpstr (gtk_stack_get_visible_child_name (GTK_STACK (stack)), ==, "job");
  g_assert_null (ks_session_get_trace (ks_window_get_session (window)));
  summaries = ks_window_get_summaries (window);
  g_assert_true (ks_session_get_summaries (ks_window_get_session (window)) == summaries);
  /* summaries are no baseline to compare with */
  ks_window_compare_with (window, folder);
  g_assert_false (ks_window_get_comparing (window));
  g_assert_nonnull (summaries);
  ks_rank_summaries_get_rows (summaries, &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpuint (ks_rank_summaries_get_rows (summaries, NULL)[1].kernel_time_ns, ==, 150000);
  /* the Ranks page, built when the job was shown, in its stack page */
  job_page = ks_test_find_descendant (gtk_stack_get_visible_child (GTK_STACK (stack)), KS_TYPE_RANKS_PAGE, NULL);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (gtk_column_view_get_model (find_column_view (job_page)))), ==, 2);
  g_assert_nonnull (ks_test_find_label (job_page, "The job's "));
  g_assert_nonnull (strstr (ks_ranks_page_get_status (KS_RANKS_PAGE (job_page)),
                            "is over the memory bound of 0 bytes (Preferences, or KINESCOPE_FOLDER_MEMORY_MB): "
                            "its 2 ranks were summarised one at a time and only the rank you activate is loaded. "
                            "No rank is loaded yet."));
  g_assert_true (g_str_has_suffix (ks_ranks_page_get_status (KS_RANKS_PAGE (job_page)),
                                   " Left out, naming no rank: stray.json."));

  /* the page's rows are the whole load's, to the last digit */
  {
    g_autoptr(KsTrace) whole = NULL;
    g_autoptr(KsAnalysis) a = NULL;
    g_autoptr(KsReport) full = NULL;
    g_autoptr(KsReport) shown = NULL;
    g_autoptr(KsJsonWriter) full_json = ks_json_writer_new ();
    g_autoptr(KsJsonWriter) shown_json = ks_json_writer_new ();
    const KsRankStats *rows;

    g_unsetenv ("KINESCOPE_FOLDER_MEMORY_MB");
    whole = ks_trace_load (folder, NULL, NULL, NULL);
    g_setenv ("KINESCOPE_FOLDER_MEMORY_MB", "0", TRUE);
    g_assert_nonnull (whole);
    a = ks_analysis_compute (whole, NULL, NULL, NULL, NULL);
    full = ks_report_new_ranks (whole, a);
    rows = ks_ranks_page_get_rows (KS_RANKS_PAGE (job_page), &n);
    shown = ks_report_new_rank_rows (rows, n);
    ks_json_begin_object (full_json, NULL);
    ks_report_write_json (full, full_json, NULL, G_MAXUINT);
    ks_json_end_object (full_json);
    ks_json_begin_object (shown_json, NULL);
    ks_report_write_json (shown, shown_json, NULL, G_MAXUINT);
    ks_json_end_object (shown_json);
    g_assert_cmpstr (ks_json_writer_get_text (shown_json), ==, ks_json_writer_get_text (full_json));
    g_assert_nonnull (strstr (ks_json_writer_get_text (shown_json), "\"rank\":1,\"file\":\"rank-1.json\",\"steps\":1,"));
    g_assert_nonnull (strstr (ks_json_writer_get_text (shown_json), "\"kernel_time_ns\":150000,"));
  }

  /* rank 1: its events alone */
  g_signal_emit_by_name (find_column_view (job_page), "activate", 1u);
  g_assert_true (ks_window_get_loading (window));
  WAIT_FOR (!ks_window_get_loading (window));
  g_assert_nonnull (ks_window_get_session (window));
  trace = ks_session_get_trace (ks_window_get_session (window));
  g_assert_cmpuint (trace->n_ranks, ==, 1);
  g_assert_cmpint (trace->ranks[0].rank, ==, 1);
  g_assert_cmpstr (gtk_stack_get_visible_child_name (GTK_STACK (stack)), ==, "trace");
  side_page = ks_window_get_page (window, "ranks");
  g_assert_true (gtk_widget_get_mapped (side_page));
  g_assert_cmpuint (ks_ranks_page_get_loaded_row (KS_RANKS_PAGE (side_page)), ==, 1);
  g_assert_nonnull (strstr (ks_ranks_page_get_status (KS_RANKS_PAGE (side_page)), "Loaded: rank 1 (the timeline shows it)."));
  g_assert_true (ks_window_get_summaries (window) == summaries);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));

  /* rank 0, from the side panel: in place of rank 1 */
  g_signal_emit_by_name (find_column_view (side_page), "activate", 0u);
  WAIT_FOR (!ks_window_get_loading (window));
  trace = ks_session_get_trace (ks_window_get_session (window));
  g_assert_cmpuint (trace->n_ranks, ==, 1);
  g_assert_cmpint (trace->ranks[0].rank, ==, 0);
  g_assert_nonnull (strstr (ks_ranks_page_get_status (KS_RANKS_PAGE (side_page)), "Loaded: rank 0 "));
  ks_test_save_screenshot (GTK_WIDGET (window), "job-summaries.png");

  /* the job again, over the trace of a rank: no trace is left */
  g_assert_true (gtk_widget_is_sensitive (GTK_WIDGET (window)));
  ks_window_open (window, folder);
  WAIT_FOR (!ks_window_get_loading (window));
  g_assert_cmpstr (gtk_stack_get_visible_child_name (GTK_STACK (stack)), ==, "job");
  g_assert_null (ks_session_get_trace (ks_window_get_session (window)));
  g_assert_false (ks_window_is_empty (window));
  /* the trace's actions are off: they do nothing */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.find", NULL);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.fit-all", NULL);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  g_assert_true (ks_window_get_summaries (window) != summaries);
  summaries = ks_window_get_summaries (window);

  /* a file that does not open leaves the job as it was */
  {
    g_autofree char *bad = g_build_filename (dir, "missing.json", NULL);
    g_autoptr(GFile) file = g_file_new_for_path (bad);
    GListModel *toplevels = gtk_window_get_toplevels ();

    ks_window_open (window, file);
    WAIT_FOR (!ks_window_get_loading (window));
    g_assert_cmpstr (gtk_stack_get_visible_child_name (GTK_STACK (stack)), ==, "job");
    g_assert_true (ks_window_get_summaries (window) == summaries);
    for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
      {
        g_autoptr(GObject) w = g_list_model_get_item (toplevels, i);

        if (ADW_IS_MESSAGE_DIALOG (w))
          {
            gtk_window_destroy (GTK_WINDOW (w));
            break;
          }
      }
  }

  /* a file of its own is no job: the summaries go */
  {
    g_autofree char *one = g_build_filename (dir, "rank-0.json", NULL);
    g_autoptr(GFile) file = g_file_new_for_path (one);

    ks_window_open (window, file);
    WAIT_FOR (!ks_window_get_loading (window));
    g_assert_null (ks_window_get_summaries (window));
    g_assert_cmpuint (ks_ranks_page_get_loaded_row (KS_RANKS_PAGE (side_page)), ==, KS_NO_INDEX);
  }

  g_unsetenv ("KINESCOPE_FOLDER_MEMORY_MB");
  gtk_window_destroy (GTK_WINDOW (window));
  {
    g_autofree char *stray = g_build_filename (dir, "stray.json", NULL);

    g_unlink (stray);
  }
  for (guint k = 0; k < 2; k++)
    {
      g_autofree char *name = g_strdup_printf ("rank-%u.json", k);
      g_autofree char *path = g_build_filename (dir, name, NULL);

      g_unlink (path);
    }
  g_rmdir (dir);
}

/* At 800×600 the side panel cannot show every page's tab: the button
 * beside them lists each page by its title, and choosing one shows it. */
/* F10 opens the main menu, made then: pressed through the X server. */
static void
test_primary_menu_key (void)
{
#ifdef HAVE_XTST
  KsWindow *window;
  GtkWidget *button;
  GtkPopover *popover;
  Display *xd;
  KeyCode f10;

  if (!GDK_IS_X11_DISPLAY (gdk_display_get_default ()))
    {
      g_test_skip ("F10 is pressed with XTEST, which needs X11");
      return;
    }
  window = ks_window_new (NULL);
  gtk_window_present (GTK_WINDOW (window));
  button = ks_test_find_descendant (GTK_WIDGET (window), GTK_TYPE_MENU_BUTTON, "primary-menu-button");
  g_assert_nonnull (button);
  g_assert_null (gtk_menu_button_get_popover (GTK_MENU_BUTTON (button)));
  xd = gdk_x11_display_get_xdisplay (gtk_widget_get_display (GTK_WIDGET (window)));
  WAIT_FOR (gtk_widget_get_mapped (GTK_WIDGET (window)));
  XSetInputFocus (xd, gdk_x11_surface_get_xid (gtk_native_get_surface (GTK_NATIVE (window))), RevertToParent,
                  CurrentTime);
  WAIT_FOR (gtk_window_is_active (GTK_WINDOW (window)));

  f10 = XKeysymToKeycode (xd, GDK_KEY_F10);
  XTestFakeKeyEvent (xd, f10, True, CurrentTime);
  XTestFakeKeyEvent (xd, f10, False, CurrentTime);
  XFlush (xd);
  WAIT_FOR ((popover = gtk_menu_button_get_popover (GTK_MENU_BUTTON (button))) != NULL &&
            gtk_widget_get_visible (GTK_WIDGET (popover)));
  g_assert_nonnull (gtk_menu_button_get_menu_model (GTK_MENU_BUTTON (button)));
  gtk_popover_popdown (popover);
  gtk_window_destroy (GTK_WINDOW (window));
#else
  g_test_skip ("built without XTEST");
#endif
}

static void
test_all_pages_menu (void)
{
  KsWindow *window = ks_test_open_window (LB_FILE);
  GtkWidget *switcher = ks_test_find_descendant (GTK_WIDGET (window), GTK_TYPE_STACK_SWITCHER, NULL);
  GtkStack *stack = gtk_stack_switcher_get_stack (GTK_STACK_SWITCHER (switcher));
  /* the tabs' scrolled window, then the button in the same row */
  GtkWidget *row = gtk_widget_get_ancestor (switcher, GTK_TYPE_BOX);
  GtkWidget *button = gtk_widget_get_last_child (row);
  g_autoptr(GListModel) pages = NULL;
  GMenuModel *menu;

  g_assert_nonnull (stack);
  g_assert_true (GTK_IS_MENU_BUTTON (button));
  gtk_window_set_default_size (GTK_WINDOW (window), 800, 600);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  pages = G_LIST_MODEL (gtk_stack_get_pages (stack));
  menu = ks_test_open_menu (GTK_MENU_BUTTON (button));
  g_assert_nonnull (menu);
  g_assert_cmpint (g_menu_model_get_n_items (menu), ==, g_list_model_get_n_items (pages));
  g_assert_cmpuint (g_list_model_get_n_items (pages), >=, 14);
  for (guint i = 0; i < g_list_model_get_n_items (pages); i++)
    {
      g_autoptr(GObject) page = g_list_model_get_item (pages, i);
      g_autoptr(GVariant) target = g_menu_model_get_item_attribute_value (menu, i, G_MENU_ATTRIBUTE_TARGET,
                                                                          G_VARIANT_TYPE_STRING);
      g_autofree char *label = NULL;

      g_assert_true (g_menu_model_get_item_attribute (menu, i, G_MENU_ATTRIBUTE_LABEL, "s", &label));
      g_assert_cmpstr (label, ==, gtk_stack_page_get_title (GTK_STACK_PAGE (page)));
      g_assert_nonnull (target);
      g_assert_cmpstr (g_variant_get_string (target, NULL), ==, gtk_stack_page_get_name (GTK_STACK_PAGE (page)));
    }

  /* the last pages' tabs are out of sight; the menu's action shows one */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.show-page", "s", "profiler-ranges"));
  g_assert_cmpstr (gtk_stack_get_visible_child_name (stack), ==, "profiler-ranges");
  /* a name that is no page changes nothing */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.show-page", "s", "no-such-page"));
  g_assert_cmpstr (gtk_stack_get_visible_child_name (stack), ==, "profiler-ranges");
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int   argc,
      char *argv[])
{
  /* Isolated XDG folders: the recent files list starts empty. */
  if (!ks_test_init_gtk (&argc, &argv))
    return 77;

  g_test_add_func ("/app/window/bad-file", test_bad_file);
  g_test_add_func ("/app/window/application-open", test_application_open);
  g_test_add_func ("/app/window/load-progress-and-cancel", test_load_progress_and_cancel);
  g_test_add_func ("/app/window/drop-and-recent", test_drop_and_recent);
  g_test_add_func ("/app/window/load-warnings", test_load_warnings);
  g_test_add_func ("/app/window/analysis-warnings", test_analysis_warnings);
  g_test_add_func ("/app/window/every-fixture", test_every_fixture);
  g_test_add_func ("/app/window/analysis-after-first-frame", test_analysis_after_first_frame);
  g_test_add_func ("/app/window/menu-accels", test_menu_accels);
  g_test_add_func ("/app/window/all-pages-menu", test_all_pages_menu);
  g_test_add_func ("/app/window/primary-menu-key", test_primary_menu_key);
  g_test_add_func ("/app/window/job-summaries", test_job_summaries);

  return g_test_run ();
}
