/* test-window-first-minute.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* What a new user meets in the window's first minute, under Xvfb with
 * G_DEBUG=fatal-criticals: the Preferences and the remembered recording
 * options of a program run from the build tree. */

#include "config.h"

#include <adwaita.h>
#include <glib/gstdio.h>
#include <string.h>

#include "ks-application.h"
#include "ks-preferences-window.h"
#include "ks-record-dialog.h"
#include "ks-selection-page.h"
#include "ks-test-gtk.h"
#include "ks-window.h"
#include "pages/ks-gaps-page.h"

#define LB_FILE "loader_bound.pt.trace.json.gz"

#define WAIT_FOR(cond) KS_TEST_WAIT_FOR (cond, 30000)

#define CHILD(dialog, name) \
  gtk_widget_get_template_child (GTK_WIDGET (dialog), KS_TYPE_RECORD_DIALOG, (name))

static GFile *
fixture (const char *name)
{
  g_autofree char *path = g_build_filename (g_getenv ("KS_FIXTURES_DIR"), name, NULL);

  return g_file_new_for_path (path);
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
  g_autoptr(KsApplication) app = new_application ();
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

int
main (int   argc,
      char *argv[])
{
  /* As the README's command runs the program: no schema folder given */
  g_unsetenv ("GSETTINGS_SCHEMA_DIR");

  if (!ks_test_init_gtk (&argc, &argv))
    return 77;

  g_test_add_func ("/app/first-minute/preferences-from-build-tree", test_preferences_from_build_tree);

  return g_test_run ();
}
