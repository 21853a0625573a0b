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
 * argv after the GTest options: kinescope-cli, the fake NVML library,
 * the directory of libkinescope-inject.so and torch-nvtx-app (both "-"
 * when the injection library is not built), python3 (or "-"). */

#include "config.h"

#include <adwaita.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>

#include "ks-test-gtk.h"
#include "ks-test-recording.h"
#include "ks-selection-page.h"
#include "ks-window.h"
#include "pages/ks-page.h"

static char *tmp_dir;
static const char *inject_dir;
static const char *torch_app;
static const char *python_path;
static const char *cli_path;

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

#define CHILD(dialog, name) ks_test_template_child (dialog, KS_TYPE_RECORD_DIALOG, name)

/* The Python options of the dialog's command line: what lies between
 * the GPU metrics frequency and the "--" before the program. */
static char *
python_arguments (KsRecordDialog *dialog)
{
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) args = ks_record_dialog_build_arguments (dialog, &error);
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_auto(GStrv) python = NULL;
  guint i = 0;

  g_assert_no_error (error);
  g_assert_nonnull (args);
  while (args[i] != NULL && !g_str_equal (args[i], "--gpu-metrics-frequency"))
    i++;
  g_assert_nonnull (args[i]);
  g_assert_nonnull (args[i + 1]);
  for (i += 2; args[i] != NULL && !g_str_equal (args[i], "--"); i++)
    g_strv_builder_add (builder, args[i]);
  g_assert_nonnull (args[i]);
  python = g_strv_builder_end (builder);
  return g_strjoinv (" ", python);
}

/* Opens the drop-down from its button, and points at row @position of
 * its list and clicks it: the list selects the row under the pointer
 * (single-click activation), the drop-down takes the selected one. */
static void
choose_from_drop_down (GtkWidget *dropdown,
                       guint      position)
{
  GtkWidget *button = ks_test_find_descendant (dropdown, GTK_TYPE_TOGGLE_BUTTON, NULL);
  GtkWidget *list;

  g_assert_nonnull (button);
  g_signal_emit_by_name (button, "clicked");
  list = ks_test_find_descendant (dropdown, GTK_TYPE_LIST_VIEW, NULL);
  g_assert_nonnull (list);
  g_assert_true (gtk_selection_model_select_item (gtk_list_view_get_model (GTK_LIST_VIEW (list)), position, TRUE));
  g_signal_emit_by_name (list, "activate", position);
  g_assert_cmpuint (gtk_drop_down_get_selected (GTK_DROP_DOWN (dropdown)), ==, position);
}

/* Types @text into the spin button, and Enter when @enter. */
static void
type_into_spin (GtkWidget  *spin,
                const char *text,
                gboolean    enter)
{
  GtkWidget *entry = ks_test_find_descendant (spin, GTK_TYPE_TEXT, NULL);

  g_assert_nonnull (entry);
  gtk_editable_set_text (GTK_EDITABLE (entry), text);
  if (enter)
    g_signal_emit_by_name (entry, "activate");
}

static void
start_cb (KsRecordDialog  *dialog,
          char           **arguments,
          const char      *directory,
          char           **environment,
          char          ***started)
{
  *started = g_strdupv (arguments);
}

static const char * const python_keys[] = {
  "record-pytorch", "record-pytorch-memory", "record-python-sampling", "record-python-sampling-frequency",
  "record-cuda-memory-history",
};

/* The Python group offers what kinescope-cli record takes, with the
 * same defaults, and the switch that makes another moot greys it. */
/* The history switch: off by default, on adds --cuda-memory-history, and
 * Start remembers it. */
static void
test_memory_history (void)
{
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  g_auto(GStrv) started = NULL;
  KsRecordDialog *dialog;
  GtkWidget *history;
  char *text;

  g_object_set (gtk_settings_get_default (), "gtk-enable-animations", FALSE, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (python_keys); i++)
    g_settings_reset (settings, python_keys[i]);
  dialog = ks_record_dialog_new (NULL);
  gtk_window_present (GTK_WINDOW (dialog));
  gtk_editable_set_text (GTK_EDITABLE (CHILD (dialog, "command_entry")), "python3 train.py");
  history = CHILD (dialog, "memory_history_switch");
  g_assert_false (gtk_switch_get_active (GTK_SWITCH (history)));
  text = python_arguments (dialog);
  g_assert_null (strstr (text, "--cuda-memory-history"));
  g_free (text);

  /* a click on the row flips its switch */
  adw_action_row_activate (ADW_ACTION_ROW (CHILD (dialog, "memory_history_row")));
  g_assert_true (gtk_switch_get_active (GTK_SWITCH (history)));
  text = python_arguments (dialog);
  g_assert_cmpstr (text, ==, "--pytorch=autograd-nvtx --pytorch-memory=true "
                             "--python-sampling=true --python-sampling-frequency=1000 --cuda-memory-history");
  g_free (text);

  gtk_editable_set_text (GTK_EDITABLE (CHILD (dialog, "directory_entry")), tmp_dir);
  gtk_editable_set_text (GTK_EDITABLE (CHILD (dialog, "environment_entry")), "");
  g_signal_connect (dialog, "start", G_CALLBACK (start_cb), &started);
  g_signal_emit_by_name (CHILD (dialog, "start_button"), "clicked");
  g_assert_nonnull (started);
  g_assert_true (g_strv_contains ((const char * const *) started, "--cuda-memory-history"));
  g_assert_true (g_settings_get_boolean (settings, "record-cuda-memory-history"));

  dialog = ks_record_dialog_new (NULL);
  g_assert_true (gtk_switch_get_active (GTK_SWITCH (CHILD (dialog, "memory_history_switch"))));
  gtk_window_destroy (GTK_WINDOW (dialog));
  for (guint i = 0; i < G_N_ELEMENTS (python_keys); i++)
    g_settings_reset (settings, python_keys[i]);
}

static void
test_python_options (void)
{
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  g_auto(GStrv) started = NULL;
  g_autofree char *pytorch = NULL;
  KsRecordDialog *dialog;
  GtkWidget *operators, *memory, *sampling, *frequency;
  char *text;

  /* a switch flips at the end of its animation; without one, at the click */
  g_object_set (gtk_settings_get_default (), "gtk-enable-animations", FALSE, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (python_keys); i++)
    g_settings_reset (settings, python_keys[i]);
  dialog = ks_record_dialog_new (NULL);
  gtk_window_present (GTK_WINDOW (dialog));
  gtk_editable_set_text (GTK_EDITABLE (CHILD (dialog, "command_entry")), "python3 train.py");
  operators = CHILD (dialog, "pytorch_dropdown");
  memory = CHILD (dialog, "pytorch_memory_switch");
  sampling = CHILD (dialog, "sampling_switch");
  frequency = CHILD (dialog, "sampling_frequency_spin");

  /* the defaults are the recorder's */
  text = python_arguments (dialog);
  g_assert_cmpstr (text, ==, "--pytorch=autograd-nvtx --pytorch-memory=true "
                             "--python-sampling=true --python-sampling-frequency=1000");
  g_free (text);
  g_assert_true (gtk_widget_is_sensitive (memory));
  g_assert_true (gtk_widget_is_sensitive (frequency));

  /* a click on the memory row flips its switch */
  adw_action_row_activate (ADW_ACTION_ROW (CHILD (dialog, "pytorch_memory_row")));
  g_assert_false (gtk_switch_get_active (GTK_SWITCH (memory)));
  text = python_arguments (dialog);
  g_assert_cmpstr (text, ==, "--pytorch=autograd-nvtx --pytorch-memory=false "
                             "--python-sampling=true --python-sampling-frequency=1000");
  g_free (text);

  /* operators off: memory has nothing to go with, and is neither offered nor passed */
  choose_from_drop_down (operators, 2);
  g_assert_false (gtk_widget_is_sensitive (memory));
  text = python_arguments (dialog);
  g_assert_cmpstr (text, ==, "--pytorch=none --python-sampling=true --python-sampling-frequency=1000");
  g_free (text);

  choose_from_drop_down (operators, 1);
  g_assert_true (gtk_widget_is_sensitive (memory));
  gtk_widget_activate (memory);
  text = python_arguments (dialog);
  g_assert_cmpstr (text, ==, "--pytorch=autograd-shapes-nvtx --pytorch-memory=true "
                             "--python-sampling=true --python-sampling-frequency=1000");
  g_free (text);

  /* sampling off greys the frequency and leaves it off the command line */
  adw_action_row_activate (ADW_ACTION_ROW (CHILD (dialog, "sampling_row")));
  g_assert_false (gtk_switch_get_active (GTK_SWITCH (sampling)));
  g_assert_false (gtk_widget_is_sensitive (frequency));
  text = python_arguments (dialog);
  g_assert_cmpstr (text, ==, "--pytorch=autograd-shapes-nvtx --pytorch-memory=true --python-sampling=false");
  g_free (text);

  adw_action_row_activate (ADW_ACTION_ROW (CHILD (dialog, "sampling_row")));
  g_assert_true (gtk_widget_is_sensitive (frequency));
  type_into_spin (frequency, "250", TRUE);
  text = python_arguments (dialog);
  g_assert_cmpstr (text, ==, "--pytorch=autograd-shapes-nvtx --pytorch-memory=true "
                             "--python-sampling=true --python-sampling-frequency=250");
  g_free (text);
  /* the recorder's range, 1–10000 Hz */
  type_into_spin (frequency, "20000", TRUE);
  g_assert_cmpint (gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (frequency)), ==, 10000);
  type_into_spin (frequency, "0", TRUE);
  g_assert_cmpint (gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (frequency)), ==, 1);
  /* typed, no Enter, and Start: what was typed is what records */
  type_into_spin (frequency, "250", FALSE);

  /* Start hands on these options and remembers them */
  gtk_editable_set_text (GTK_EDITABLE (CHILD (dialog, "directory_entry")), tmp_dir);
  gtk_editable_set_text (GTK_EDITABLE (CHILD (dialog, "environment_entry")), "");
  g_signal_connect (dialog, "start", G_CALLBACK (start_cb), &started);
  g_signal_emit_by_name (CHILD (dialog, "start_button"), "clicked");
  g_assert_nonnull (started);
  g_assert_true (g_strv_contains ((const char * const *) started, "--pytorch=autograd-shapes-nvtx"));
  g_assert_true (g_strv_contains ((const char * const *) started, "--python-sampling-frequency=250"));
  pytorch = g_settings_get_string (settings, "record-pytorch");
  g_assert_cmpstr (pytorch, ==, "autograd-shapes-nvtx");
  g_assert_true (g_settings_get_boolean (settings, "record-pytorch-memory"));
  g_assert_true (g_settings_get_boolean (settings, "record-python-sampling"));
  g_assert_cmpint (g_settings_get_int (settings, "record-python-sampling-frequency"), ==, 250);

  /* and the next dialog opens with them */
  dialog = ks_record_dialog_new (NULL);
  gtk_editable_set_text (GTK_EDITABLE (CHILD (dialog, "command_entry")), "python3 train.py");
  text = python_arguments (dialog);
  g_assert_cmpstr (text, ==, "--pytorch=autograd-shapes-nvtx --pytorch-memory=true "
                             "--python-sampling=true --python-sampling-frequency=250");
  g_free (text);
  gtk_window_destroy (GTK_WINDOW (dialog));

  /* the remembered "off" states come back greyed */
  g_settings_set_string (settings, "record-pytorch", "none");
  g_settings_set_boolean (settings, "record-python-sampling", FALSE);
  dialog = ks_record_dialog_new (NULL);
  g_assert_false (gtk_widget_is_sensitive (CHILD (dialog, "pytorch_memory_switch")));
  g_assert_false (gtk_widget_is_sensitive (CHILD (dialog, "sampling_frequency_spin")));
  gtk_editable_set_text (GTK_EDITABLE (CHILD (dialog, "command_entry")), "python3 train.py");
  text = python_arguments (dialog);
  g_assert_cmpstr (text, ==, "--pytorch=none --python-sampling=false");
  g_free (text);
  gtk_window_destroy (GTK_WINDOW (dialog));
  for (guint i = 0; i < G_N_ELEMENTS (python_keys); i++)
    g_settings_reset (settings, python_keys[i]);
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
  menu = ks_test_open_menu (GTK_MENU_BUTTON (profile));
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

/* A window that records @command from its Profile menu (NVTX only,
 * the Python options as remembered), once it shows the trace and its
 * analysis. */
static KsWindow *
record_in_window (const char *command)
{
  KsWindow *window = ks_window_new (NULL);
  KsRecordDialog *dialog;
  KsSession *session;

  gtk_window_set_default_size (GTK_WINDOW (window), 1400, 860);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.record", NULL));
  dialog = find_dialog ();
  g_assert_nonnull (dialog);
  gtk_editable_set_text (GTK_EDITABLE (CHILD (dialog, "command_entry")), command);
  gtk_editable_set_text (GTK_EDITABLE (CHILD (dialog, "directory_entry")), tmp_dir);
  gtk_editable_set_text (GTK_EDITABLE (CHILD (dialog, "environment_entry")), "");
  gtk_check_button_set_active (GTK_CHECK_BUTTON (CHILD (dialog, "cuda_check")), FALSE);
  gtk_check_button_set_active (GTK_CHECK_BUTTON (CHILD (dialog, "nvtx_check")), TRUE);
  gtk_check_button_set_active (GTK_CHECK_BUTTON (CHILD (dialog, "osrt_check")), FALSE);
  gtk_check_button_set_active (GTK_CHECK_BUTTON (CHILD (dialog, "metrics_check")), FALSE);
  g_signal_emit_by_name (CHILD (dialog, "start_button"), "clicked");

  KS_TEST_WAIT_FOR (ks_window_get_session (window) != NULL, 30000);
  session = ks_window_get_session (window);
  KS_TEST_WAIT_FOR (ks_session_get_trace (session) != NULL && ks_session_get_analysis (session) != NULL, 30000);
  return window;
}

/* The recorder's last progress line (the one that names the output)
 * reaches the window after the recorder's exit does: the window still
 * opens the trace. A kinescope-cli that hands its progress lines on
 * from a child 0.3 s after it has exited makes the order certain. */
static void
test_window_late_progress (void)
{
  g_autofree char *wrapper = g_build_filename (tmp_dir, "late-kinescope-cli", NULL);
  g_autofree char *quoted = g_shell_quote (cli_path);
  g_autofree char *script = g_strdup_printf ("#!/bin/sh\n"
                                             "lines=$(mktemp)\n"
                                             "%s \"$@\" 3>\"$lines\"\n"
                                             "status=$?\n"
                                             "(sleep 0.3; cat \"$lines\"; rm -f \"$lines\") >&3 &\n"
                                             "exit $status\n",
                                             quoted);
  KsWindow *window;

  g_assert_true (g_file_set_contents (wrapper, script, -1, NULL));
  g_assert_cmpint (g_chmod (wrapper, 0755), ==, 0);
  g_setenv ("KINESCOPE_CLI", wrapper, TRUE);
  window = record_in_window ("sleep 0.2");
  g_unsetenv ("KINESCOPE_CLI");
  g_assert_false (ks_window_is_empty (window));
  gtk_window_destroy (GTK_WINDOW (window));
}

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

static void
highlight_cb (GtkWidget *page,
              guint      name,
              guint     *highlighted)
{
  *highlighted = name;
}

/* A recording of PyTorch's operator NVTX text, made from the Profile
 * menu (torch-nvtx-app emits exactly what emit_nvtx does, two steps of
 * forward and backward): the Operators page of the window it opens in
 * lists each CPU operator, and no annotation among them. */
static void
test_window_torch_operators (void)
{
  static const char * const want[] = {
    "aten::addmm", "aten::linear", "aten::relu", "aten::t", "aten::threshold_backward",
    "autograd::engine::evaluate_function: AddmmBackward0",
    "autograd::engine::evaluate_function: ReluBackward0",
  };
  KsWindow *window;
  KsSession *session;
  KsTrace *trace;
  GtkWidget *page, *view;
  GListModel *model;
  g_autoptr(GPtrArray) names = g_ptr_array_new ();
  guint highlighted = 0;

  if (g_str_equal (inject_dir, "-"))
    {
      g_test_skip ("libkinescope-inject.so was not built (no CUDA toolkit)");
      return;
    }

  window = record_in_window (torch_app);
  session = ks_window_get_session (window);
  trace = ks_session_get_trace (session);

  /* the side pages fill one per main-loop iteration */
  ks_test_wait_pages_filled (GTK_WIDGET (window));
  page = ks_window_get_page (window, "operators");
  g_assert_true (ks_page_get_analysis (KS_PAGE (page)) == ks_session_get_analysis (session));
  view = ks_test_find_descendant (page, GTK_TYPE_COLUMN_VIEW, NULL);
  g_assert_nonnull (view);
  model = G_LIST_MODEL (gtk_column_view_get_model (GTK_COLUMN_VIEW (view)));
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, G_N_ELEMENTS (want));
  /* a row's activation marks its operator's slices: the row's name */
  g_signal_connect (page, "highlight", G_CALLBACK (highlight_cb), &highlighted);
  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_signal_emit_by_name (view, "activate", i);
      g_ptr_array_add (names, (gpointer) ks_trace_string (trace, highlighted));
    }
  g_ptr_array_sort (names, compare_names);
  for (guint i = 0; i < G_N_ELEMENTS (want); i++)
    g_assert_cmpstr (g_ptr_array_index (names, i), ==, want[i]);

  gtk_window_destroy (GTK_WINDOW (window));
}

/* A Python program that spins in one line of spin() under work() */
static const char busy_py[] =
  "import time\n"
  "def spin(seconds):\n"
  "    end = time.monotonic() + seconds\n"
  "    while time.monotonic() < end: pass\n"
  "def work():\n"
  "    spin(0.5)\n"
  "work()\n";

/* The samples in [@start, @end) of @thread whose innermost frame is @function. */
static guint
count_samples (KsTrace    *trace,
               guint32     thread,
               gint64      start,
               gint64      end,
               const char *function)
{
  guint32 n = 0;
  const KsSample *s = ks_trace_thread_samples (trace, thread, &n);
  guint count = 0;

  for (guint32 i = 0; i < n; i++)
    if (s[i].ts >= start && s[i].ts < end &&
        g_str_equal (ks_trace_string (trace, trace->stack_nodes[s[i].node].function), function))
      count++;
  return count;
}

/* A Python program recorded from the Profile menu with the dialog's
 * defaults: its main thread's Python samples row, and a click on the
 * frame it spun in shows that frame and its callers. */
static void
test_window_python_samples (void)
{
  g_autofree char *script = g_build_filename (tmp_dir, "busy.py", NULL);
  g_autofree char *quoted_python = NULL;
  g_autofree char *quoted_script = NULL;
  g_autofree char *command = NULL;
  g_autofree char *spin_at = g_strdup_printf ("%s:4", script);
  g_autofree char *stack = NULL;
  g_autofree char *count = NULL;
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  g_autoptr(GError) error = NULL;
  guint32 track = KS_NO_INDEX, slice = KS_NO_INDEX, sel_track, sel_slice;
  KsWindow *window;
  KsSession *session;
  KsTimeline *timeline;
  KsSelectionPage *page;
  KsTimelineLayout *layout;
  KsTrace *trace;
  const KsTrack *t;
  double x, y;

  if (g_str_equal (inject_dir, "-") || g_str_equal (python_path, "-"))
    {
      g_test_skip ("libkinescope-inject.so was not built, or no python3");
      return;
    }
  g_assert_true (g_file_set_contents (script, busy_py, -1, &error));
  g_assert_no_error (error);
  quoted_python = g_shell_quote (python_path);
  quoted_script = g_shell_quote (script);
  command = g_strdup_printf ("%s %s", quoted_python, quoted_script);
  for (guint i = 0; i < G_N_ELEMENTS (python_keys); i++)
    g_settings_reset (settings, python_keys[i]);

  window = record_in_window (command);
  session = ks_window_get_session (window);
  trace = ks_session_get_trace (session);
  timeline = ks_window_get_timeline (window);
  layout = ks_timeline_get_layout (timeline);
  page = KS_SELECTION_PAGE (ks_window_get_page (window, "selection"));

  /* the longest stretch spent in spin() */
  for (guint32 k = 0; k < trace->n_tracks; k++)
    if (trace->tracks[k].kind == KS_TRACK_SAMPLES)
      for (guint32 i = 0; i < trace->tracks[k].n_slices; i++)
        if (g_str_equal (ks_trace_string (trace, trace->tracks[k].name_id[i]), "spin") &&
            (slice == KS_NO_INDEX ||
             trace->tracks[k].end[i] - trace->tracks[k].start[i] >
             trace->tracks[track].end[slice] - trace->tracks[track].start[slice]))
          {
            track = k;
            slice = i;
          }
  g_assert_cmpuint (slice, !=, KS_NO_INDEX);
  t = &trace->tracks[track];
  g_assert_cmpstr (ks_timeline_layout_get_row (layout, ks_timeline_layout_find_track_row (layout, track))->label,
                   ==, "Python samples");
  /* 0.5 s at 1000 Hz: hundreds of samples, whatever the machine's load
   * (which may pause the sampler long enough to split the stretch) */
  {
    gint64 in_spin = 0;

    for (guint32 i = 0; i < t->n_slices; i++)
      if (g_str_equal (ks_trace_string (trace, t->name_id[i]), "spin"))
        in_spin += t->end[i] - t->start[i];
    g_assert_cmpint (in_spin, >, 100000000);
  }

  ks_session_set_visible (session, t->start[slice], t->end[slice]);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (timeline));
  g_assert_true (ks_timeline_get_slice_point (timeline, track, slice, &x, &y));
  ks_test_click_timeline (GTK_WIDGET (timeline), 1, x, y);
  g_assert_true (ks_session_get_selected_slice (session, &sel_track, &sel_slice));
  g_assert_cmpuint (sel_track, ==, track);
  g_assert_cmpuint (sel_slice, ==, slice);

  g_assert_cmpstr (ks_selection_page_lookup_value (page, "Python Frame", "Function"), ==, "spin");
  g_assert_cmpstr (ks_selection_page_lookup_value (page, "Python Frame", "Location"), ==, spin_at);
  count = g_strdup_printf ("%u", count_samples (trace, t->thread, t->start[slice], t->end[slice], "spin"));
  g_assert_cmpstr (ks_selection_page_lookup_value (page, "Python Frame", "Samples"), ==, count);
  /* the stack: spin, called from work() at line 6, called from the module at line 7 */
  stack = g_strdup_printf ("%s:6", script);
  g_assert_cmpstr (ks_selection_page_lookup_value (page, "Stack", "spin"), ==, spin_at);
  g_assert_cmpstr (ks_selection_page_lookup_value (page, "Stack", "work"), ==, stack);
  g_clear_pointer (&stack, g_free);
  stack = g_strdup_printf ("%s:7", script);
  g_assert_cmpstr (ks_selection_page_lookup_value (page, "Stack", "<module>"), ==, stack);
  g_assert_cmpuint (trace->tracks[track].depth[slice], ==, 2);

  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int    argc,
      char **argv)
{
  int ret;

  g_setenv ("GSETTINGS_BACKEND", "memory", TRUE);
  gtk_test_init (&argc, &argv, NULL);
  if (argc < 5)
    g_error ("usage: test-record-dialog KINESCOPE_CLI FAKE_NVML INJECT_DIR TORCH_NVTX_APP");
  inject_dir = argv[3];
  torch_app = argv[4];
  python_path = argc > 5 ? argv[5] : "-";
  if (!g_str_equal (inject_dir, "-"))
    g_setenv ("KINESCOPE_INJECT_DIR", inject_dir, TRUE);
  /* No KINESCOPE_CLI: this test runs from the build tree, where the
   * window must find the kinescope-cli built beside it (argv[1]). */
  g_unsetenv ("KINESCOPE_CLI");
  if (!g_file_test (argv[1], G_FILE_TEST_IS_EXECUTABLE))
    g_error ("%s is not built", argv[1]);
  cli_path = argv[1];
  g_setenv ("KINESCOPE_NVML_LIBRARY", argv[2], TRUE);
  adw_init ();
  tmp_dir = g_dir_make_tmp ("ks-test-dialog-XXXXXX", NULL);
  g_assert_nonnull (tmp_dir);
  g_setenv ("TMPDIR", tmp_dir, TRUE);

  g_test_add_func ("/collector/dialog/record", test_record_and_settings);
  g_test_add_func ("/collector/dialog/stop", test_stop);
  g_test_add_func ("/collector/dialog/invalid", test_invalid_input);
  g_test_add_func ("/collector/dialog/python-options", test_python_options);
  g_test_add_func ("/collector/dialog/memory-history", test_memory_history);
  g_test_add_func ("/collector/dialog/window-profile-menu", test_window_profile_menu);
  g_test_add_func ("/collector/dialog/window-torch-operators", test_window_torch_operators);
  g_test_add_func ("/collector/dialog/window-python-samples", test_window_python_samples);
  g_test_add_func ("/collector/dialog/window-late-progress", test_window_late_progress);
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
