/* test-open-rule.c: where a file opens, the one rule of
 * ks_application_open_files() for every way of opening
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "ks-application.h"
#include "ks-test-gtk.h"
#include "ks-window.h"

#define WAIT_FOR(cond) KS_TEST_WAIT_FOR (cond, 30000)

static GFile *
fixture (const char *name)
{
  g_autofree char *path = g_build_filename (g_getenv ("KS_FIXTURES_DIR"), name, NULL);

  return g_file_new_for_path (path);
}

static guint
n_windows (KsApplication *app)
{
  return g_list_length (gtk_application_get_windows (GTK_APPLICATION (app)));
}

static gboolean
any_loading (KsApplication *app)
{
  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (app)); l != NULL; l = l->next)
    if (ks_window_get_loading (l->data))
      return TRUE;
  return FALSE;
}

/* The window of @app showing @file once every load ended, asserting
 * there is one. */
static KsWindow *
window_of (KsApplication *app,
           GFile         *file)
{
  KsWindow *found = NULL;

  /* the list reorders as windows take the focus: not walked while waiting */
  WAIT_FOR (!any_loading (app));
  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (app)); l != NULL; l = l->next)
    {
      KsWindow *window = l->data;

      if (ks_window_get_file (window) != NULL && g_file_equal (ks_window_get_file (window), file))
        {
          g_assert_null (found);
          found = window;
        }
    }
  if (found == NULL)
    for (GList *l = gtk_application_get_windows (GTK_APPLICATION (app)); l != NULL; l = l->next)
      g_test_message ("%s: a window shows %s, not %s", G_STRFUNC,
                      ks_window_get_file (l->data) ? g_file_peek_path (ks_window_get_file (l->data)) : "nothing",
                      g_file_peek_path (file));
  g_assert_nonnull (found);
  return found;
}

/* The window Ctrl+N opens: the newest, with nothing in it. */
static KsWindow *
new_empty_window (KsApplication *app)
{
  guint before = n_windows (app);
  KsWindow *window;

  g_action_group_activate_action (G_ACTION_GROUP (app), "new-window", NULL);
  g_assert_cmpuint (n_windows (app), ==, before + 1);
  window = gtk_application_get_windows (GTK_APPLICATION (app))->data;
  g_assert_true (ks_window_is_empty (window));
  return window;
}

/* Drops @files on @window's drop target, as a file manager does. */
static void
drop_files (KsWindow *window,
            GSList   *files)
{
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (GTK_WIDGET (window));
  GtkEventController *target = NULL;
  GValue value = G_VALUE_INIT;
  gboolean handled = FALSE;

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GtkEventController) c = g_list_model_get_item (controllers, i);

      if (GTK_IS_DROP_TARGET (c))
        target = c;
    }
  g_assert_nonnull (target);
  g_value_init (&value, GDK_TYPE_FILE_LIST);
  g_value_take_boxed (&value, gdk_file_list_new_from_list (files));
  g_signal_emit_by_name (target, "drop", &value, 100.0, 100.0, &handled);
  g_value_unset (&value);
  g_assert_true (handled);
}

static GtkWidget *
find_button_with_action (GtkWidget  *root,
                         const char *action)
{
  if (GTK_IS_BUTTON (root) && g_strcmp0 (gtk_actionable_get_action_name (GTK_ACTIONABLE (root)), action) == 0)
    return root;
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL; child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_button_with_action (child, action);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* Each file opens in a window that shows nothing, the one asked first,
 * else in a new one; a window that shows a trace keeps it. */
static void
test_open_rule (void)
{
  g_autoptr(KsApplication) app = ks_application_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) a = fixture ("loader_bound.pt.trace.json.gz");
  g_autoptr(GFile) b = fixture ("seed_cnn.pt.trace.json.gz");
  g_autoptr(GFile) c = fixture ("workers_pinned.pt.trace.json.gz");
  g_autoptr(GFile) d = fixture ("nosteps_fast.pt.trace.json.gz");
  g_autoptr(GFile) demo = ks_window_find_demo_trace ();
  g_autoptr(GSList) both = NULL;
  g_autoptr(GSList) one = NULL;
  g_autofree char *uri = g_file_get_uri (b);
  KsWindow *w1, *w2, *w3, *w4, *w5;
  GtkWidget *button;

  g_assert_nonnull (demo);
  g_application_set_flags (G_APPLICATION (app), G_APPLICATION_HANDLES_OPEN | G_APPLICATION_NON_UNIQUE);
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, &error));
  g_assert_no_error (error);

  /* The command line, no window yet: a new one, loading at once. */
  g_application_open (G_APPLICATION (app), &a, 1, "");
  g_assert_cmpuint (n_windows (app), ==, 1);
  w1 = gtk_application_get_windows (GTK_APPLICATION (app))->data;
  g_assert_true (ks_window_get_loading (w1));
  g_assert_true (window_of (app, a) == w1);

  /* A drop of two files on w1, which shows a trace: w1 keeps it, the
   * first file goes to the empty window w2, the second to a new one. */
  w2 = new_empty_window (app);
  both = g_slist_append (g_slist_append (NULL, b), c);
  drop_files (w1, both);
  g_assert_cmpuint (n_windows (app), ==, 3);
  g_assert_true (window_of (app, a) == w1);
  g_assert_true (window_of (app, b) == w2);
  w3 = window_of (app, c);
  g_assert_true (w3 != w1 && w3 != w2);

  /* A drop on an empty window: that window. */
  w4 = new_empty_window (app);
  one = g_slist_append (NULL, d);
  drop_files (w4, one);
  g_assert_cmpuint (n_windows (app), ==, 4);
  g_assert_true (window_of (app, d) == w4);

  /* The demo: its button in an empty window opens it there... */
  w5 = new_empty_window (app);
  button = find_button_with_action (GTK_WIDGET (w5), "win.open-demo");
  g_assert_nonnull (button);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (w5));
  g_assert_true (gtk_widget_is_sensitive (button));
  g_assert_true (gtk_widget_activate (button));
  /* a keyboard activation clicks once its press is shown */
  WAIT_FOR (!ks_window_is_empty (w5));
  g_assert_cmpuint (n_windows (app), ==, 5);
  g_assert_true (window_of (app, demo) == w5);
  /* ...and from a window with a trace, in a new one. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (w1), "win.open-demo", NULL));
  g_assert_cmpuint (n_windows (app), ==, 6);
  g_assert_true (window_of (app, a) == w1);

  /* The command line while every window shows something: a new one;
   * with an empty window, that one. */
  g_application_open (G_APPLICATION (app), &b, 1, "");
  g_assert_cmpuint (n_windows (app), ==, 7);
  w2 = new_empty_window (app);
  g_application_open (G_APPLICATION (app), &c, 1, "");
  g_assert_cmpuint (n_windows (app), ==, 8);
  g_assert_true (ks_window_get_loading (w2));
  WAIT_FOR (!ks_window_get_loading (w2));
  g_assert_true (g_file_equal (ks_window_get_file (w2), c));

  /* Compare With: the file is compared with w1's trace, in w1. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (w1), "win.compare-file", "s", uri));
  g_assert_cmpuint (n_windows (app), ==, 8);
  WAIT_FOR (ks_window_get_compare_view (w1) != NULL);
  g_assert_true (g_file_equal (ks_window_get_file (w1), a));

  while (gtk_application_get_windows (GTK_APPLICATION (app)) != NULL)
    gtk_window_destroy (gtk_application_get_windows (GTK_APPLICATION (app))->data);
}

/* A window without an application (the tests', an embedder's) cannot
 * add windows to one: the first file replaces its trace, the others
 * open in windows without an application. */
static void
test_open_rule_no_application (void)
{
  g_autoptr(GFile) a = fixture ("loader_bound.pt.trace.json.gz");
  g_autoptr(GFile) b = fixture ("seed_cnn.pt.trace.json.gz");
  g_autoptr(GFile) c = fixture ("workers_pinned.pt.trace.json.gz");
  g_autoptr(GSList) both = g_slist_append (g_slist_append (NULL, a), b);
  GListModel *toplevels = gtk_window_get_toplevels ();
  guint before = g_list_model_get_n_items (toplevels);
  KsWindow *window = ks_window_new (NULL);
  KsWindow *other = NULL;

  gtk_window_present (GTK_WINDOW (window));
  ks_window_open (window, c);
  WAIT_FOR (ks_window_get_session (window) != NULL && !ks_window_get_loading (window));

  drop_files (window, both);
  g_assert_cmpuint (g_list_model_get_n_items (toplevels), ==, before + 2);
  WAIT_FOR (!ks_window_get_loading (window));
  g_assert_true (g_file_equal (ks_window_get_file (window), a));
  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GObject) w = g_list_model_get_item (toplevels, i);

      if (KS_IS_WINDOW (w) && KS_WINDOW (w) != window)
        other = KS_WINDOW (w);
    }
  g_assert_nonnull (other);
  g_assert_null (gtk_window_get_application (GTK_WINDOW (other)));
  WAIT_FOR (!ks_window_get_loading (other));
  g_assert_true (g_file_equal (ks_window_get_file (other), b));

  gtk_window_destroy (GTK_WINDOW (other));
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int   argc,
      char *argv[])
{
  if (!ks_test_init_gtk (&argc, &argv))
    return 77;

  g_test_add_func ("/app/open-rule/application", test_open_rule);
  g_test_add_func ("/app/open-rule/no-application", test_open_rule_no_application);

  return g_test_run ();
}
