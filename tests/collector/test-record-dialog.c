/* test-record-dialog.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* The Profile menu's recording, end to end under Xvfb: fill the Record
 * New Session dialog, click Start, let the live view run kinescope-cli
 * on a CPU-only command (GPU metrics from the NVML stand-in), and check
 * the trace, the live numbers, the remembered settings and Stop.
 *
 * argv after the GTest options: kinescope-cli, the fake NVML library. */

#include "config.h"

#include <adwaita.h>
#include <glib/gstdio.h>
#include <stdlib.h>

#include "ks-test-gtk.h"
#include "ks-test-recording.h"
#include "ks-window.h"

static char *tmp_dir;

static KsRecordDialog *
make_dialog (const char *command,
             KsTestRun  *run)
{
  return ks_test_record_dialog (command, tmp_dir, run);
}

static void
test_record_and_settings (void)
{
  KsTestRun run = { 0 };
  KsRecordDialog *dialog;
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  g_autofree char *marker_path = g_build_filename (tmp_dir, "marker", NULL);
  g_autofree char *marker = NULL;
  g_autofree char *complete = NULL;
  g_auto(GStrv) trace = NULL;
  g_auto(GStrv) environment = NULL;
  g_autofree char *command = NULL;
  const char *gpu;

  dialog = make_dialog ("sh -c 'echo \"$KS_TEST_VALUE $KS_OTHER\" > marker; sleep 1.2'", &run);
  g_signal_emit_by_name (ks_test_template_child (dialog, KS_TYPE_RECORD_DIALOG, "start_button"), "clicked");
  g_assert_nonnull (run.view);

  KS_TEST_WAIT_FOR (run.done, 20000);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_nonnull (run.path);
  g_assert_true (g_str_has_prefix (run.path, tmp_dir));
  g_assert_true (g_str_has_suffix (run.path, "/report1.kscope"));
  complete = ks_test_kscope_meta (run.path, "complete");
  g_assert_cmpstr (complete, ==, "1");

  /* ran in the working folder with the environment additions */
  g_assert_true (g_file_get_contents (marker_path, &marker, NULL, NULL));
  g_assert_cmpstr (marker, ==, "hello two words\n");

  /* the live view showed the stand-in GPU */
  gpu = gtk_label_get_label (GTK_LABEL (ks_test_template_child (run.view, KS_TYPE_RECORDING_VIEW, "gpu_label")));
  g_assert_cmpstr (gpu, ==, "37 %");
  g_assert_cmpuint (ks_recording_view_get_events (run.view), >, 0);
  g_assert_cmpstr (ks_recording_view_get_output (run.view), ==, run.path);

  /* remembered for the next time */
  command = g_settings_get_string (settings, "record-command");
  g_assert_cmpstr (command, ==, "sh -c 'echo \"$KS_TEST_VALUE $KS_OTHER\" > marker; sleep 1.2'");
  trace = g_settings_get_strv (settings, "record-trace");
  g_assert_cmpuint (g_strv_length (trace), ==, 1);
  g_assert_cmpstr (trace[0], ==, "gpu-metrics");
  environment = g_settings_get_strv (settings, "record-environment");
  g_assert_cmpuint (g_strv_length (environment), ==, 2);
  g_assert_cmpstr (environment[1], ==, "KS_OTHER=two words");
  g_assert_cmpint (g_settings_get_int (settings, "record-gpu-metrics-frequency"), ==, 20);

  /* a new dialog starts from what was remembered */
  dialog = ks_record_dialog_new (NULL);
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (ks_test_template_child (dialog, KS_TYPE_RECORD_DIALOG, "command_entry"))),
                   ==, "sh -c 'echo \"$KS_TEST_VALUE $KS_OTHER\" > marker; sleep 1.2'");
  g_assert_false (gtk_check_button_get_active (GTK_CHECK_BUTTON (ks_test_template_child (dialog, KS_TYPE_RECORD_DIALOG, "cuda_check"))));
  g_assert_cmpint (gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (ks_test_template_child (dialog, KS_TYPE_RECORD_DIALOG, "frequency_spin"))), ==, 20);
  gtk_window_destroy (GTK_WINDOW (dialog));

  ks_test_run_clear (&run);
}

static void
test_stop (void)
{
  KsTestRun run = { 0 };
  KsRecordDialog *dialog;

  dialog = make_dialog ("sleep 30", &run);
  g_signal_emit_by_name (ks_test_template_child (dialog, KS_TYPE_RECORD_DIALOG, "start_button"), "clicked");
  g_assert_nonnull (run.view);
  ks_test_run_stop (&run);
  ks_test_run_clear (&run);
}

static void
test_invalid_input (void)
{
  KsTestRun run = { 0 };
  KsRecordDialog *dialog = make_dialog ("echo 'unterminated", &run);
  GtkWidget *error_label = ks_test_template_child (dialog, KS_TYPE_RECORD_DIALOG, "error_label");

  g_signal_emit_by_name (ks_test_template_child (dialog, KS_TYPE_RECORD_DIALOG, "start_button"), "clicked");
  g_assert_null (run.view);
  g_assert_true (gtk_widget_get_visible (error_label));

  gtk_editable_set_text (GTK_EDITABLE (ks_test_template_child (dialog, KS_TYPE_RECORD_DIALOG, "command_entry")), "true");
  gtk_editable_set_text (GTK_EDITABLE (ks_test_template_child (dialog, KS_TYPE_RECORD_DIALOG, "directory_entry")), "/nonexistent/folder");
  g_signal_emit_by_name (ks_test_template_child (dialog, KS_TYPE_RECORD_DIALOG, "start_button"), "clicked");
  g_assert_null (run.view);
  g_assert_nonnull (strstr (gtk_label_get_label (GTK_LABEL (error_label)), "/nonexistent/folder"));
  gtk_window_destroy (GTK_WINDOW (dialog));
}

static GtkWidget *
find_menu_button (GtkWidget  *widget,
                  const char *label)
{
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c != NULL; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found;

      if (GTK_IS_MENU_BUTTON (c) && g_strcmp0 (gtk_menu_button_get_label (GTK_MENU_BUTTON (c)), label) == 0)
        return c;
      if ((found = find_menu_button (c, label)) != NULL)
        return found;
    }
  return NULL;
}

static KsRecordDialog *
find_dialog (void)
{
  g_autoptr(GListModel) toplevels = g_object_ref (gtk_window_get_toplevels ());

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GObject) w = g_list_model_get_item (toplevels, i);

      if (KS_IS_RECORD_DIALOG (w) && gtk_widget_get_visible (GTK_WIDGET (w)))
        return KS_RECORD_DIALOG (w);
    }
  return NULL;
}

/* From the window: Profile ▸ Record New Session…, Start, and the trace
 * opens in the window when the program ends. */
static void
test_window_profile_menu (void)
{
  KsWindow *window = ks_window_new (NULL);
  GtkWidget *profile;
  GMenuModel *menu;
  g_autofree char *action = NULL;
  KsRecordDialog *dialog;

  gtk_window_present (GTK_WINDOW (window));
  profile = find_menu_button (GTK_WIDGET (window), "_Profile");
  g_assert_nonnull (profile);
  menu = gtk_menu_button_get_menu_model (GTK_MENU_BUTTON (profile));
  g_assert_nonnull (menu);
  /* the first item of the first section */
  menu = g_menu_model_get_item_link (menu, 0, G_MENU_LINK_SECTION);
  g_assert_true (g_menu_model_get_item_attribute (menu, 0, G_MENU_ATTRIBUTE_ACTION, "s", &action));
  g_assert_cmpstr (action, ==, "win.record");
  g_object_unref (menu);

  g_assert_true (ks_window_is_empty (window));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.record", NULL));
  dialog = find_dialog ();
  g_assert_nonnull (dialog);
  g_assert_true (gtk_window_get_transient_for (GTK_WINDOW (dialog)) == GTK_WINDOW (window));
  gtk_editable_set_text (GTK_EDITABLE (ks_test_template_child (dialog, KS_TYPE_RECORD_DIALOG, "command_entry")), "sleep 0.8");
  gtk_editable_set_text (GTK_EDITABLE (ks_test_template_child (dialog, KS_TYPE_RECORD_DIALOG, "directory_entry")), tmp_dir);
  gtk_editable_set_text (GTK_EDITABLE (ks_test_template_child (dialog, KS_TYPE_RECORD_DIALOG, "environment_entry")), "");
  gtk_check_button_set_active (GTK_CHECK_BUTTON (ks_test_template_child (dialog, KS_TYPE_RECORD_DIALOG, "cuda_check")), FALSE);
  gtk_check_button_set_active (GTK_CHECK_BUTTON (ks_test_template_child (dialog, KS_TYPE_RECORD_DIALOG, "nvtx_check")), FALSE);
  gtk_check_button_set_active (GTK_CHECK_BUTTON (ks_test_template_child (dialog, KS_TYPE_RECORD_DIALOG, "osrt_check")), FALSE);
  gtk_check_button_set_active (GTK_CHECK_BUTTON (ks_test_template_child (dialog, KS_TYPE_RECORD_DIALOG, "metrics_check")), TRUE);
  g_signal_emit_by_name (ks_test_template_child (dialog, KS_TYPE_RECORD_DIALOG, "start_button"), "clicked");

  KS_TEST_WAIT_FOR (!ks_window_is_empty (window), 30000);
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int    argc,
      char **argv)
{
  int ret;

  g_setenv ("GSETTINGS_BACKEND", "memory", TRUE);
  gtk_test_init (&argc, &argv, NULL);
  if (argc < 3)
    g_error ("usage: test-record-dialog KINESCOPE_CLI FAKE_NVML");
  /* No KINESCOPE_CLI: this test runs from the build tree, where the
   * window must find the kinescope-cli built beside it (argv[1]). */
  g_unsetenv ("KINESCOPE_CLI");
  if (!g_file_test (argv[1], G_FILE_TEST_IS_EXECUTABLE))
    g_error ("%s is not built", argv[1]);
  g_setenv ("KINESCOPE_NVML_LIBRARY", argv[2], TRUE);
  adw_init ();
  tmp_dir = g_dir_make_tmp ("ks-test-dialog-XXXXXX", NULL);
  g_assert_nonnull (tmp_dir);
  g_setenv ("TMPDIR", tmp_dir, TRUE);

  g_test_add_func ("/collector/dialog/record", test_record_and_settings);
  g_test_add_func ("/collector/dialog/stop", test_stop);
  g_test_add_func ("/collector/dialog/invalid", test_invalid_input);
  g_test_add_func ("/collector/dialog/window-profile-menu", test_window_profile_menu);
  ret = g_test_run ();
  if (ret == 0)
    {
      g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", tmp_dir);

      /* tmp_dir comes from g_dir_make_tmp: a plain name of ours */
      ret = system (cmd) == 0 ? 0 : 1;
    }
  g_free (tmp_dir);
  return ret;
}
